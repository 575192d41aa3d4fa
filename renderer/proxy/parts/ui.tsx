import { AlertText, useActionState, type AlertKind } from "../../shared/ui/action.js";
import { useCallback } from "react";
import { useLoad as useSharedLoad } from "../../shared/ui/use-load.js";
import { ApiError } from "../api.js";
import { serviceText } from "../errors/errors-i18n.js";
import { useT, type Translate } from "../i18n.js";
import { useApp } from "../store.js";

/**
 * Turns any failure into a sentence for the operator. Every failure the service names with
 * a stable `code` is said in the reader's language (`t` changes with the language, so callers
 * re-word on a switch); the English sentence beside the code is the fallback for codes the
 * console does not know.
 */
export function errorText(err: unknown, t: Translate): string {
  if (err instanceof ApiError) {
    if (err.code) return serviceText(err, useApp.getState().lang) ?? err.message;
    if (err.status === 0) return t("error.unreachable");
    if (err.status === 429) return err.message || t("error.busy");
    if (err.status === 503) return `${t("error.coreDown")} ${err.message}`;
    return err.message;
  }
  if (err instanceof Error && err.message) return err.message;
  return t("error.unknown");
}

/**
 * A sentence said in whatever language the reader has now: notices and errors kept in state
 * are worded when shown, so switching the language rewords them too.
 */
export type Say = (t: Translate) => string;

export function sayError(err: unknown): Say {
  return (t) => errorText(err, t);
}

export interface Loaded<T> {
  data: T | null;
  error: string;
  loading: boolean;
  reload(): Promise<void>;
}

/**
 * Loads data on mount (and every `everyMs` when given) through the pages' one loader
 * (renderer/shared/ui/use-load.ts); keeps the last good data on failure and words the failure
 * in the reader's language when shown.
 */
export function useLoad<T>(load: () => Promise<T>, everyMs = 0): Loaded<T> {
  const t = useT();
  const { data, failure, loading, reload } = useSharedLoad(load, { everyMs });
  return { data, error: failure === null ? "" : errorText(failure, t), loading, reload };
}

/** Runs an action, tracking busy state and its error/success text. */
export function useAction() {
  const t = useT();
  return useActionState(useCallback((err: unknown) => errorText(err, t), [t]));
}

export function Alert({ text, kind = "error" }: { text: string; kind?: AlertKind }) {
  return <AlertText text={text} kind={kind} className="alert" />;
}

/** The pages' one card (renderer/shared/ui/card.tsx). */
export { Card } from "../../shared/ui/card.js";

/** The console's forms use the one form field of every page. */
export { Field } from "../../shared/field.js";

export function Loading() {
  const t = useT();
  return (
    <p className="muted" role="status">
      {t("common.loading")}
    </p>
  );
}
