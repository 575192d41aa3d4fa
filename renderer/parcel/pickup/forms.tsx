import { useT } from "../i18n.js";
import { navigate } from "../route.js";
import { useApp } from "../store.js";
import {
  CodeEntryForm,
  PasswordEntryForm,
  ProblemNotice,
  type CodeEntryProps,
  type EntryWords,
  type PasswordEntryProps,
} from "../ui/entry-forms.js";
import { useErrorText } from "../ui/errors.js";
import { Notice } from "../ui/notice.js";
import { groupCode, MIN_CODE, PICKUP_CODE } from "./code.js";
import { pickupDict, type PickupKey } from "./i18n.js";

export interface Problem {
  key?: PickupKey;
  vars?: Record<string, string | number>;
  error?: unknown;
  /** Seconds the service asked us to wait (429); said once, by the button when it counts down. */
  wait?: number;
  /** The code typed is the open inbox's: where it sends files, and its code. */
  inbox?: { code: string; name: string };
}

/** The code typed sends files to a computer: said so, with the way to its send page. */
function InboxCodeNotice({ inbox }: { inbox: { code: string; name: string } }) {
  const t = useT(pickupDict);
  return (
    <Notice kind="info">
      <p className="inbox-code-text">{t("inboxCode", { name: inbox.name })}</p>
      <button
        type="button"
        className="primary big wide"
        onClick={() => navigate(`inbox/${inbox.code}`)}
      >
        {t("sendTo", { name: inbox.name })}
      </button>
    </Notice>
  );
}

/**
 * What went wrong, or what the code is instead. `counted`: a form's button counts the wait
 * down, so the notice does not say it again.
 */
export function ProblemText({ problem, counted }: { problem: Problem | null; counted: boolean }) {
  const t = useT(pickupDict);
  const describe = useErrorText();
  if (!problem) return null;
  if (problem.inbox) return <InboxCodeNotice inbox={problem.inbox} />;
  return (
    <ProblemNotice
      text={problem.key ? t(problem.key, problem.vars) : describe(problem.error)}
      waitSeconds={counted ? undefined : problem.wait}
      waitText={(time) => t("waitFor", { time })}
      kind={problem.key === "sessionLapsed" ? "info" : "error"}
    />
  );
}

function useWords(): EntryWords {
  const t = useT(pickupDict);
  return { busy: t("opening"), wait: (time) => t("waitButton", { time }) };
}

export function CodeForm(props: CodeEntryProps) {
  const t = useT(pickupDict);
  const policy = useApp((s) => s.policy);
  const length = policy.phase === "ready" ? policy.policy.code_length : 0;
  return (
    <CodeEntryForm
      {...props}
      label={t("code")}
      hint={t("codeHint")}
      submit={t("open")}
      placeholder={groupCode("ABC123XYZ7KM4PQR".slice(0, length || MIN_CODE))}
      words={useWords()}
      code={PICKUP_CODE}
    />
  );
}

export function PasswordForm(props: PasswordEntryProps) {
  const t = useT(pickupDict);
  return (
    <PasswordEntryForm
      {...props}
      lead={t("passwordLead")}
      label={t("password")}
      submit={t("unlock")}
      other={t("otherCode")}
      words={useWords()}
    />
  );
}
