import { useSyncExternalStore } from "react";

/** Phone widths (the same breakpoint as the style sheets), where tables become cards. */
const NARROW = "(max-width: 760px)";

export function useNarrow(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const q = window.matchMedia(NARROW);
      q.addEventListener("change", onChange);
      return () => q.removeEventListener("change", onChange);
    },
    () => window.matchMedia(NARROW).matches,
  );
}
