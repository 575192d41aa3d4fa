import { useCallback, useEffect, useRef, useState } from "react";
import type { GatehouseDesktopApi } from "../../../preload/contract.js";

/** The desktop bridge; the Desktop screen is only routed to where it exists. */
export function desktopApi(): GatehouseDesktopApi {
  const api = window.gatehouse;
  if (!api) throw new Error("not in the desktop app");
  return api;
}

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  reload(): void;
}

/**
 * Loads from the desktop bridge on mount, on `reload()`, every `everyMs` while the page is
 * visible, and whenever the services' status changes (a restart, a new address).
 */
export function useDesktopLoad<T>(
  load: (api: GatehouseDesktopApi) => Promise<T>,
  everyMs = 0,
): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const loadRef = useRef(load);
  loadRef.current = load;
  // Answers of calls started before the latest one (or before unmounting) are dropped.
  const seq = useRef({ n: 0 });
  const reload = useCallback(() => {
    const mine = ++seq.current.n;
    loadRef
      .current(desktopApi())
      .then((value) => {
        if (mine !== seq.current.n) return;
        setData(value);
        setError(null);
      })
      .catch((err: unknown) => {
        if (mine === seq.current.n) setError(err);
      });
  }, []);
  useEffect(() => {
    const counter = seq.current;
    reload();
    const off = desktopApi().app.onServiceStatus(() => reload());
    const timer =
      everyMs > 0
        ? setInterval(() => {
            if (document.visibilityState === "visible") reload();
          }, everyMs)
        : undefined;
    return () => {
      counter.n++;
      off();
      clearInterval(timer);
    };
  }, [reload, everyMs]);
  return { data, error, reload };
}
