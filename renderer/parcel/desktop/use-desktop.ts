import { useEffect } from "react";
import { useLoad } from "../../shared/ui/use-load.js";
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

const seen = () => document.visibilityState === "visible";

/**
 * Loads from the desktop bridge through the pages' one loader (renderer/shared/ui/use-load.ts)
 * on mount, on `reload()`, every `everyMs` while the page is visible, and whenever the
 * services' status changes (a restart, a new address); a newer load drops an older one's answer.
 */
export function useDesktopLoad<T>(
  load: (api: GatehouseDesktopApi) => Promise<T>,
  everyMs = 0,
): Loaded<T> {
  const { data, failure, reload } = useLoad(() => load(desktopApi()), { everyMs, mayPoll: seen });
  useEffect(() => desktopApi().app.onServiceStatus(() => void reload()), [reload]);
  return { data, error: failure, reload };
}
