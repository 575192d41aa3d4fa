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

/** Told when this page saved the desktop settings (`noteSettingsSaved`). */
const settingsSaved = new EventTarget();

/**
 * Says that this page just saved the desktop settings: the loads that read what a save changes
 * (`afterSave`) load again at once, not when the services have restarted or the next poll
 * comes (the addresses follow the networks chosen the moment they are stored).
 */
export function noteSettingsSaved(): void {
  settingsSaved.dispatchEvent(new Event("saved"));
}

/**
 * Loads from the desktop bridge through the pages' one loader (renderer/shared/ui/use-load.ts)
 * on mount, on `reload()`, every `everyMs` while the page is visible, whenever the services'
 * status changes (a restart, a new address), and with `afterSave` when this page saved the
 * settings; a newer load drops an older one's answer.
 */
export function useDesktopLoad<T>(
  load: (api: GatehouseDesktopApi) => Promise<T>,
  everyMs = 0,
  { afterSave = false }: { afterSave?: boolean } = {},
): Loaded<T> {
  const { data, failure, reload } = useLoad(() => load(desktopApi()), { everyMs, mayPoll: seen });
  useEffect(() => desktopApi().app.onServiceStatus(() => void reload()), [reload]);
  useEffect(() => {
    if (!afterSave) return;
    const again = () => void reload();
    settingsSaved.addEventListener("saved", again);
    return () => settingsSaved.removeEventListener("saved", again);
  }, [afterSave, reload]);
  return { data, error: failure, reload };
}
