import { useCallback, useState } from "react";

/**
 * Runs an action for a form or button, tracking its busy state and the error or success text
 * to show (`describe` turns any failure into words). The failure is kept, not its words: it is
 * described when shown, so a change of language rewords it (`describe` must be pure).
 */
export function useActionState(describe: (err: unknown) => string) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ err: unknown } | null>(null);
  const [done, setDone] = useState("");
  const run = useCallback(
    async <R,>(action: () => Promise<R>, doneText: string | ((r: R) => string) = "") => {
      setBusy(true);
      setFailure(null);
      setDone("");
      try {
        const r = await action();
        setDone(typeof doneText === "function" ? doneText(r) : doneText);
        return true;
      } catch (err) {
        setFailure({ err });
        return false;
      } finally {
        setBusy(false);
      }
    },
    [],
  );
  const clear = useCallback(() => {
    setFailure(null);
    setDone("");
  }, []);
  const error = failure ? describe(failure.err) : "";
  return { busy, error, failure: failure?.err, done, run, clear };
}

export type AlertKind = "error" | "ok" | "info";

/** An error is announced at once (role alert); other notes politely (role status). */
export function AlertText(props: { text: string; kind: AlertKind; className: string }) {
  if (!props.text) return null;
  return (
    <p
      className={`${props.className} ${props.className}-${props.kind}`}
      role={props.kind === "error" ? "alert" : "status"}
    >
      {props.text}
    </p>
  );
}
