import { useEffect, useRef } from "react";
import { api } from "../api.js";
import { useLoad } from "../parts/ui.js";

/** How often a screen that waits for the core asks whether it runs. */
const CORE_WATCH_MS = 3000;

export interface CoreWatch {
  /** The first answer came (or failed): until then a screen says nothing either way. */
  known: boolean;
  /** Not running because nobody started it, or it was stopped: a state, not a fault. */
  stoppedOnPurpose: boolean;
}

/**
 * Watches the core while a screen has no live data from it (mounted only then): whether it was
 * stopped on purpose, and `onBack` once it is seen down and then running again, so the screen
 * can open its stream again without a click.
 */
export function useCoreWatch(onBack?: () => void): CoreWatch {
  const status = useLoad(() => api("GET /status"), CORE_WATCH_MS);
  const online = status.data?.coreOnline;
  const sawDown = useRef(false);
  const back = useRef(onBack);
  back.current = onBack;
  useEffect(() => {
    if (online === false) sawDown.current = true;
    else if (online && sawDown.current) back.current?.();
  }, [online]);
  return {
    known: status.data !== null || status.error !== "",
    stoppedOnPurpose: online === false && !status.data?.coreStarted,
  };
}
