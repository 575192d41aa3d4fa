import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, failed } from "../api.js";
import type { FailureData, FromWorker, ToWorker, ViewRequest } from "./connections-protocol.js";
import { aheadOf, holds, type TableWindow } from "./connections-table.js";

/** The live connections as the page shows them, from the worker that holds the whole list. */
export interface ConnectionFeed {
  /** The rows asked for and the counts; null until the first answer. */
  window: TableWindow | null;
  /**
   * Why the last request failed; null after a good one. The last good window stays, unless
   * the core is not there (then its connections are gone too).
   */
  failure: Error | null;
  /** Asks the service again now; resolves once the answer is shown. */
  refresh(): Promise<void>;
  /** Tells which rows are in view (end excluded); rows around them are asked for ahead. */
  showRange(first: number, last: number): void;
}

function errorOf(f: FailureData): Error {
  return f.other ? new Error(f.message) : new ApiError(f.status, f.message, f.body, f.retryAfter);
}

/**
 * Runs the connections worker while the page is open: it asks the service every second
 * (not while the tab is hidden) and answers with only the rows in view. `choices` is what
 * the page shows (search, order, details); rows in view come through `showRange`.
 */
export function useConnectionFeed(choices: Omit<ViewRequest, "start" | "end">): ConnectionFeed {
  const worker = useRef<Worker | null>(null);
  const [shown, setShown] = useState<TableWindow | null>(null);
  const [failure, setFailure] = useState<Error | null>(null);
  const waiting = useRef(new Map<number, () => void>());
  const nextId = useRef(1);
  // Before the page has measured its list: the first screenfuls.
  const asked = useRef({ start: 0, end: 64 });
  const latest = useRef(choices);
  latest.current = choices;
  const matched = useRef(0);

  const post = useCallback((msg: ToWorker) => worker.current?.postMessage(msg), []);
  const sendView = useCallback(
    () => post({ type: "view", view: { ...latest.current, ...asked.current } }),
    [post],
  );

  useEffect(() => {
    const w = new Worker(new URL("./connections-worker.ts", import.meta.url), {
      type: "module",
    });
    worker.current = w;
    const pending = waiting.current;
    w.onmessage = (e: MessageEvent<FromWorker>) => {
      const msg = e.data;
      if (msg.type === "window") {
        matched.current = msg.window.matched;
        setShown(msg.window);
        setFailure(null);
      } else {
        const err = errorOf(msg.failure);
        if (err instanceof ApiError) failed(err, "/connections");
        setFailure(err);
        // Without its core no connection lives on: the last list is not left as if it did.
        if (err instanceof ApiError && err.code === "core.unreachable") setShown(null);
      }
      for (const id of msg.refreshed) {
        pending.get(id)?.();
        pending.delete(id);
      }
    };
    w.onerror = (e) => setFailure(new Error(e.message || "The connections list stopped."));
    const onVisibility = () =>
      post({ type: "visible", visible: document.visibilityState !== "hidden" });
    document.addEventListener("visibilitychange", onVisibility);
    if (document.visibilityState === "hidden") onVisibility();
    sendView();
    return () => {
      document.removeEventListener("visibilitychange", onVisibility);
      w.terminate();
      worker.current = null;
      for (const done of pending.values()) done();
      pending.clear();
    };
  }, [post, sendView]);

  // The worker hears of a change of search, order, details or language once.
  const key = JSON.stringify(choices);
  useEffect(() => {
    sendView();
  }, [key, sendView]);

  const refresh = useCallback(
    () =>
      new Promise<void>((done) => {
        if (!worker.current) return done();
        const id = nextId.current++;
        waiting.current.set(id, done);
        post({ type: "refresh", id });
      }),
    [post],
  );

  const showRange = useCallback(
    (first: number, last: number) => {
      if (holds(asked.current, first, last, matched.current)) return;
      asked.current = aheadOf(first, last);
      sendView();
    },
    [sendView],
  );

  return { window: shown, failure, refresh, showRange };
}
