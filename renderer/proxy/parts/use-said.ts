import { useCallback, useState } from "react";
import { useT } from "../i18n.js";
import type { Say } from "./ui.js";

/**
 * A form's message kept as what to say, not as words: it is worded when shown, so a change of
 * language rewords it. `set("")` clears it.
 */
export function useSaid(): [string, (say: Say | "") => void] {
  const t = useT();
  const [said, setSaid] = useState<{ say: Say } | null>(null);
  const set = useCallback((say: Say | "") => setSaid(say ? { say } : null), []);
  return [said ? said.say(t) : "", set];
}
