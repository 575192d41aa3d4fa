import { useCallback, useEffect, useRef, useState } from "react";
import { Loader, type LoadState } from "./loader.js";

export interface LoadOptions {
  /** Loads again whenever the key changes (the load under way is aborted, the data kept). */
  key?: string;
  /** Refreshes every so many milliseconds (0: never). */
  everyMs?: number;
  /** Whether a polling tick may run now. */
  mayPoll?(): boolean;
}

export interface LoadResult<T> {
  data: T | null;
  /** The last failure, kept as it came: each console words it when shown. */
  failure: unknown;
  loading: boolean;
  reload(): Promise<void>;
}

/**
 * The pages' one loader (rules in ./loader.ts): loads on mount, on a new key, on `reload()`
 * and every `everyMs`; aborts the load under way on each of those and on unmounting.
 */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  { key = "", everyMs = 0, mayPoll }: LoadOptions = {},
): LoadResult<T> {
  const [state, setState] = useState<LoadState<T>>({ data: null, failure: null, loading: true });
  const loadRef = useRef(load);
  loadRef.current = load;
  const mayPollRef = useRef(mayPoll);
  mayPollRef.current = mayPoll;
  const loaderRef = useRef<Loader<T> | null>(null);
  loaderRef.current ??= new Loader<T>({
    load: (signal) => loadRef.current(signal),
    publish: setState,
    mayPoll: () => mayPollRef.current?.() ?? true,
  });
  useEffect(() => {
    const loader = loaderRef.current;
    void loader?.start(everyMs);
    return () => loader?.stop();
  }, [key, everyMs]);
  const reload = useCallback(() => loaderRef.current?.reload() ?? Promise.resolve(), []);
  return { data: state.data, failure: state.failure?.err ?? null, loading: state.loading, reload };
}
