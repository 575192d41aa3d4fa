import { useT } from "../i18n.js";
import { PICKUP_CODE } from "../pickup/code.js";
import {
  CodeEntryForm,
  PasswordEntryForm,
  ProblemNotice,
  type CodeEntryProps,
  type EntryWords,
  type PasswordEntryProps,
} from "../ui/entry-forms.js";
import { useErrorText } from "../ui/errors.js";
import type { Problem } from "./choice.js";
import { inboxDict } from "./i18n.js";

/** What went wrong; `counted`: a form's button counts the wait down, so it is said there only. */
export function ProblemText({ problem, counted }: { problem: Problem | null; counted: boolean }) {
  const t = useT(inboxDict);
  const describe = useErrorText();
  if (!problem) return null;
  return (
    <ProblemNotice
      text={problem.key ? t(problem.key, problem.vars) : describe(problem.error)}
      waitSeconds={counted ? undefined : problem.wait}
      waitText={(time) => t("waitFor", { time })}
    />
  );
}

function useWords(): EntryWords {
  const t = useT(inboxDict);
  return { busy: t("opening"), wait: (time) => t("waitButton", { time }) };
}

/** The inbox's code, typed when the link had none or a wrong one. */
export function CodeForm(props: CodeEntryProps) {
  const t = useT(inboxDict);
  return (
    <CodeEntryForm
      {...props}
      lead={t("codeLead")}
      label={t("code")}
      hint={t("codeHint")}
      submit={t("open")}
      words={useWords()}
      code={PICKUP_CODE}
    />
  );
}

export function PasswordForm(props: PasswordEntryProps) {
  const t = useT(inboxDict);
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
