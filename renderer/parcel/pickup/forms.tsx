import { useT } from "../i18n.js";
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
import { groupCode, MIN_CODE, PICKUP_CODE } from "./code.js";
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
  const describe = useErrorText();
  if (!problem) return null;
  return (
    <ProblemNotice
      text={problem.key ? t(problem.key, problem.vars) : describe(problem.error)}
      waitSeconds={problem.wait}
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
