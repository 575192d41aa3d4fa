import { useEffect, useState } from "react";
import { formatDateTime, formatDuration } from "../../shared/format.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { uiDict } from "./i18n.js";

/** Current Unix seconds, re-rendering every `everyMs`. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Math.floor(Date.now() / 1000));
  useEffect(() => {
    const timer = setInterval(() => setNow(Math.floor(Date.now() / 1000)), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/**
 * "Expires in 6 d 23 h" ticking live, with the exact local time as a tooltip and for screen
 * readers; "Expired" once the time has passed. `verb` "ends" is for upload sessions.
 */
export function Countdown({
  until,
  verb = "expires",
}: {
  until: number;
  verb?: "expires" | "ends";
}) {
  const t = useT(uiDict);
  const lang = useApp((s) => s.lang);
  const now = useNow(1000);
  const left = until - now;
  const exact = formatDateTime(until * 1000, lang);
  return (
    <time className="countdown" dateTime={new Date(until * 1000).toISOString()} title={exact}>
      {left > 0
        ? t(verb === "ends" ? "endsIn" : "expiresIn", { time: formatDuration(left, lang) })
        : t("expiredAt")}
    </time>
  );
}
