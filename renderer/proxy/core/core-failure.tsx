import { useCallback } from "react";
import { useActionState } from "../../shared/ui/action.js";
import { ApiError } from "../api.js";
import { briefServiceText, isDetailCode } from "../errors/brief-errors.js";
import { useT, type Translate } from "../i18n.js";
import { useApp } from "../store.js";
import type { Status } from "../../../server/contract/proxy.js";
import { errorText, type Say } from "../parts/ui.js";
import "./styles-core-output.css";

/**
 * A failure of the core in the reader's language, and apart from it the core's own words
 * (its last lines, in English), which the screen shows folded as "Core output".
 */
export interface CoreFailure {
  text: string;
  output: string;
}

const NONE: CoreFailure = { text: "", output: "" };

/** The core's own words an error carries: `output` beside the code, or a code's `detail`. */
export function coreOutputOf(err: unknown): string {
  if (!(err instanceof ApiError)) return "";
  const output = err.body.output;
  if (typeof output === "string" && output.trim()) return output;
  const detail = err.params.detail;
  return isDetailCode(err.code) && typeof detail === "string" ? detail : "";
}

/** A failed start, stop or restart: the sentence by code, the core's words apart. */
export function coreFailure(err: unknown, t: Translate): CoreFailure {
  const output = coreOutputOf(err);
  if (output && err instanceof ApiError) {
    const text = briefServiceText(err, useApp.getState().lang);
    if (text) return { text, output };
  }
  return { text: errorText(err, t), output: "" };
}

/**
 * A failure worded when shown (a change of language rewords it), with the core's own words
 * apart in `output` when the service sent any: a rule or settings change the core refused.
 */
export type Failure = Say & { output?: string };

export function sayFailure(err: unknown): Failure {
  const say: Say = (t) => coreFailure(err, t).text;
  return Object.assign(say, { output: coreFailure(err, errorOnly).output });
}

// Whether a failure has the core's words apart does not depend on the language.
const errorOnly: Translate = (key) => key;

/**
 * useAction for changes the core may refuse: the error is the sentence by code, and the core's
 * words (shown folded with CoreOutput) are `output`, never inside the reader's sentence.
 */
export function useCoreAction() {
  const t = useT();
  const describe = useCallback((err: unknown) => coreFailure(err, t).text, [t]);
  const action = useActionState(describe);
  // Kept with the failure itself, so it goes when the next run starts or the action is cleared.
  const output = action.failure === undefined ? "" : coreFailure(action.failure, t).output;
  return { ...action, output };
}

/**
 * The last configuration or start problem `/status` names (`configError` under its code):
 * said by the code, with the core's words apart. Nothing when the core's own error (shown
 * above it) already says the same.
 */
export function statusFailure(s: Status | null, t: Translate): CoreFailure {
  if (!s?.configError || (s.coreError && s.configErrorCode === s.coreErrorCode)) return NONE;
  const code = s.configErrorCode ?? "";
  if (code === "core.port_in_use")
    return { text: t("dash.portInUse", { port: s.controllerPort ?? "?" }), output: "" };
  // A start refused for missing geodata is said from `geodataMissing` (geodata.tsx).
  if (code === "geodata.missing") return NONE;
  const lang = useApp.getState().lang;
  const said = code && code !== "core.config" ? briefServiceText({ code, params: {} }, lang) : null;
  // An undone settings change is said by the banner on every screen, once (probation.tsx).
  if (code.startsWith("probation.")) return NONE;
  return { text: said ?? t("dash.configProblem"), output: s.configError };
}

/** The core's own words, folded under a label and marked as English. */
export function CoreOutput({ text, t }: { text: string; t: Translate }) {
  if (!text) return null;
  return (
    <details className="core-output" data-testid="core-output">
      <summary>{t("dash.coreOutput")}</summary>
      <pre lang="en">{text}</pre>
    </details>
  );
}
