import { useId, useState } from "react";
import { formatDuration } from "../../shared/format.js";
import { useT } from "../i18n.js";
import { groupCode, MAX_CODE, MIN_CODE, normalizeInput } from "../pickup/code.js";
import { useApp } from "../store.js";
import { useNow } from "../ui/countdown.js";
import { useErrorText } from "../ui/errors.js";
import { Notice } from "../ui/notice.js";
import type { Problem } from "./choice.js";
import { inboxDict } from "./i18n.js";

export function ProblemText({ problem }: { problem: Problem | null }) {
  const t = useT(inboxDict);
  const lang = useApp((s) => s.lang);
  const describe = useErrorText();
  if (!problem) return null;
  const text = problem.key ? t(problem.key, problem.vars) : describe(problem.error);
  const wait = problem.wait ?? 0;
  return (
    <Notice kind="error">
      {text}
      {wait > 0 ? ` ${t("waitFor", { time: formatDuration(wait, lang) })}` : ""}
    </Notice>
  );
}

function SubmitLabel({
  busy,
  blockedUntil,
  idle,
}: {
  busy: boolean;
  blockedUntil: number;
  idle: string;
}) {
  const t = useT(inboxDict);
  const lang = useApp((s) => s.lang);
  const now = useNow(1000);
  if (busy) return <>{t("opening")}</>;
  if (blockedUntil > now)
    return <>{t("waitFor", { time: formatDuration(blockedUntil - now, lang) })}</>;
  return <>{idle}</>;
}

/** The inbox's code, typed when the link had none or a wrong one. */
export function CodeForm(props: {
  initial: string;
  busy: boolean;
  blockedUntil: number;
  onSubmit(code: string): void;
}) {
  const t = useT(inboxDict);
  const [value, setValue] = useState(() => groupCode(props.initial.slice(0, MAX_CODE)));
  const id = useId();
  const now = useNow(1000);
  const plain = normalizeInput(value);
  const complete = plain.length >= MIN_CODE;
  return (
    <form
      className="pickup-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (complete && !props.busy) props.onSubmit(plain);
      }}
    >
      <p>{t("codeLead")}</p>
      <label htmlFor={id} className="big-label">
        {t("code")}
      </label>
      <input
        id={id}
        className="code-input"
        value={value}
        autoComplete="off"
        autoCorrect="off"
        autoCapitalize="characters"
        spellCheck={false}
        enterKeyHint="go"
        aria-describedby={`${id}-hint`}
        onChange={(e) => setValue(groupCode(normalizeInput(e.target.value).slice(0, MAX_CODE)))}
      />
      <span id={`${id}-hint`} className="field-hint">
        {t("codeHint")}
      </span>
      <button
        type="submit"
        className="primary big wide"
        disabled={!complete || props.busy || props.blockedUntil > now}
      >
        <SubmitLabel busy={props.busy} blockedUntil={props.blockedUntil} idle={t("open")} />
      </button>
    </form>
  );
}

export function PasswordForm(props: {
  busy: boolean;
  blockedUntil: number;
  onSubmit(password: string): void;
  onOther(): void;
}) {
  const t = useT(inboxDict);
  const [value, setValue] = useState("");
  const id = useId();
  const now = useNow(1000);
  return (
    <form
      className="pickup-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (value && !props.busy) props.onSubmit(value);
      }}
    >
      <p>{t("passwordLead")}</p>
      <label htmlFor={id} className="big-label">
        {t("password")}
      </label>
      <input
        id={id}
        className="big-input"
        type="password"
        autoComplete="off"
        enterKeyHint="go"
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <button
        type="submit"
        className="primary big wide"
        disabled={!value || props.busy || props.blockedUntil > now}
      >
        <SubmitLabel busy={props.busy} blockedUntil={props.blockedUntil} idle={t("unlock")} />
      </button>
      <button type="button" className="linkish other-code" onClick={props.onOther}>
        {t("otherCode")}
      </button>
    </form>
  );
}
