import { AlertText, useActionState, type AlertKind } from "../shared/action.js";
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { ApiError } from "./api.js";
import { serviceText } from "./errors-i18n.js";
import { useT, type Translate } from "./i18n.js";
import { useApp } from "./store.js";

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

/** Loads data on mount (and every `everyMs` when given); keeps the last good data on failure. */
export function useLoad<T>(load: () => Promise<T>, everyMs = 0): Loaded<T> {
  const t = useT();
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState("");
  const [loading, setLoading] = useState(true);
  const loadRef = useRef(load);
  loadRef.current = load;
  const alive = useRef(true);
  const reload = useCallback(async () => {
    try {
      const value = await loadRef.current();
      if (!alive.current) return;
      setData(value);
      setError("");
    } catch (err) {
      if (alive.current) setError(errorText(err, t));
    } finally {
      if (alive.current) setLoading(false);
    }
  }, [t]);
  useEffect(() => {
    alive.current = true;
    void reload();
    if (everyMs <= 0) return () => void (alive.current = false);
    const timer = setInterval(() => void reload(), everyMs);
    return () => {
      alive.current = false;
      clearInterval(timer);
    };
  }, [reload, everyMs]);
  return { data, error, loading, reload };
}

/** Runs an action, tracking busy state and its error/success text. */
export function useAction() {
  const t = useT();
  return useActionState(useCallback((err: unknown) => errorText(err, t), [t]));
}

export function Alert({ text, kind = "error" }: { text: string; kind?: AlertKind }) {
  return <AlertText text={text} kind={kind} className="alert" />;
}

export function Card({
  title,
  children,
  actions,
}: {
  title: string;
  children: ReactNode;
  actions?: ReactNode;
}) {
  return (
    <section className="card" aria-label={title}>
      <header className="card-head">
        <h2>{title}</h2>
        {actions ? <div className="card-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** The console's forms use the one form field of every page. */
export { Field } from "../shared/field.js";

export function Loading() {
  const t = useT();
  return (
    <p className="muted" role="status">
      {t("common.loading")}
    </p>
  );
}
