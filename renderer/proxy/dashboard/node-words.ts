import type { Key, Translate } from "../i18n.js";

/**
 * The core's built-in targets a "node in use" can be: keywords a person does not read. With
 * no subscription (or a manual choice that is gone) the proxy group points at REJECT.
 */
const BUILT_IN: Record<string, Key> = {
  REJECT: "dash.nodeReject",
  DIRECT: "dash.nodeDirect",
};

/** A built-in target in the reader's words; null for a real node (shown by its name). */
export function builtInNodeWord(id: string, t: Translate): string | null {
  const key = BUILT_IN[id];
  return key ? t(key) : null;
}
