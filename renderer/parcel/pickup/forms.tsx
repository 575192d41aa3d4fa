import { useId, useState } from "react";
import { formatDuration } from "../../shared/format.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { useNow } from "../ui/countdown.js";
import { useErrorText } from "../ui/errors.js";
import { Notice } from "../ui/notice.js";
import { groupCode, MAX_CODE, MIN_CODE, normalizeInput } from "./code.js";
import { pickupDict, type PickupKey } from "./i18n.js";

export interface Problem {
  key?: PickupKey;
  vars?: Record<string, string | number>;
  error?: unknown;
  /** Seconds the service asked us to wait (429); stated once, the buttons count down. */
  wait?: number;
}

export function ProblemText({ problem }: { problem: Problem | null }) {
  const t = useT(pickupDict);
  const lang = useApp((s) => s.lang);
  const describe = useErrorText();
  if (!problem) return null;
  const text = problem.key ? t(problem.key, problem.vars) : describe(problem.error);
  const wait = problem.wait ?? 0;
  return (
    <Notice kind={problem.key === "sessionLapsed" ? "info" : "error"}>
      {text}
      {wait > 0 ? ` ${t("waitFor", { time: formatDuration(wait, lang) })}` : ""}
    </Notice>
  );
}

/** The submit button's text: busy, counting down a 429 wait, or its action. */
function SubmitLabel({
  busy,
  blockedUntil,
  idle,
}: {
  busy: boolean;
  blockedUntil: number;
  idle: string;
}) {
  const t = useT(pickupDict);
  const lang = useApp((s) => s.lang);
  const now = useNow(1000);
  if (busy) return <>{t("opening")}</>;
  if (blockedUntil > now)
    return <>{t("waitButton", { time: formatDuration(blockedUntil - now, lang) })}</>;
  return <>{idle}</>;
}

export function CodeForm({
  initial,
  busy,
  blockedUntil,
  onSubmit,
}: {
  initial: string;
  busy: boolean;
  blockedUntil: number;
  onSubmit(code: string): void;
}) {
  const t = useT(pickupDict);
  const policy = useApp((s) => s.policy);
  const length = policy.phase === "ready" ? policy.policy.code_length : 0;
  const [value, setValue] = useState(() => groupCode(initial.slice(0, MAX_CODE)));
  const id = useId();
  const now = useNow(1000);
  const plain = normalizeInput(value);
  const complete = plain.length >= MIN_CODE;
  return (
    <form
      className="pickup-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (complete && !busy) onSubmit(plain);
      }}
    >
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
        placeholder={groupCode("ABC123XYZ7KM4PQR".slice(0, length || MIN_CODE))}
        onChange={(e) => setValue(groupCode(normalizeInput(e.target.value).slice(0, MAX_CODE)))}
      />
      <span id={`${id}-hint`} className="field-hint">
        {t("codeHint")}
      </span>
      <button
        type="submit"
        className="primary big wide"
        disabled={!complete || busy || blockedUntil > now}
      >
        <SubmitLabel busy={busy} blockedUntil={blockedUntil} idle={t("open")} />
      </button>
    </form>
  );
}

export function PasswordForm({
  busy,
  blockedUntil,
  onSubmit,
  onOther,
}: {
  busy: boolean;
  blockedUntil: number;
  onSubmit(password: string): void;
  onOther(): void;
}) {
  const t = useT(pickupDict);
  const [value, setValue] = useState("");
  const id = useId();
  const now = useNow(1000);
  return (
    <form
      className="pickup-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (value && !busy) onSubmit(value);
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
        disabled={!value || busy || blockedUntil > now}
      >
        <SubmitLabel busy={busy} blockedUntil={blockedUntil} idle={t("unlock")} />
      </button>
      <button type="button" className="linkish other-code" onClick={onOther}>
        {t("otherCode")}
      </button>
    </form>
  );
}
