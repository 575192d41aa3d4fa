import { useCallback, useEffect, useState } from "react";
import { formatDuration } from "../parts/format.js";
import type { Translate } from "../i18n.js";
import type { Lang } from "../../shared/lang.js";

/** This page's clock in whole seconds, read again every second while `running`. */
function useSeconds(running: boolean): number {
  const [now, setNow] = useState(() => Math.floor(Date.now() / 1000));
  useEffect(() => {
    if (!running) return;
    setNow(Math.floor(Date.now() / 1000));
    const timer = setInterval(() => setNow(Math.floor(Date.now() / 1000)), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return now;
}

/**
 * A sign-in refused for too many wrong passwords (429): the service's Retry-After, said once
 * ("Try again in 15 min.") and counted down on the button, as the pickup page does; in this
 * page's seconds, so the two machines' clocks need not agree. It ends by itself.
 */
export function useLoginWait() {
  const [wait, setWait] = useState<{ until: number } | null>(null);
  const now = useSeconds(wait !== null);
  const waiting = wait !== null && wait.until > now;
  useEffect(() => {
    if (wait && wait.until <= now) setWait(null);
  }, [wait, now]);
  const start = useCallback(
    (seconds: number) => setWait({ until: Math.floor(Date.now() / 1000) + seconds }),
    [],
  );
  return {
    waiting,
    start,
    /**
     * The sentence ("" when there is none): when sign-in opens again, as a time of day, so it
     * stays true while the button counts down (rounded up to the minute it falls in).
     */
    said: (t: Translate, lang: Lang): string =>
      waiting
        ? t("auth.tooMany", {
            time: new Date(Math.ceil(wait.until / 60) * 60_000).toLocaleTimeString(lang, {
              hour: "2-digit",
              minute: "2-digit",
            }),
          })
        : "",
    /** The button's words while waiting, counting down. */
    button: (t: Translate, lang: Lang): string =>
      wait ? t("auth.waitButton", { time: formatDuration(wait.until - now, lang) }) : "",
  };
}
