import type { InboxGrant } from "../../../server/contract/parcel-inbox.js";
import { formatBytes } from "../../shared/format.js";
import type { Picked } from "../send/send-types.js";
import type { InboxKey } from "./i18n.js";

/** Something to tell the sender: a sentence of the page, or a service error. */
export interface Problem {
  key?: InboxKey;
  vars?: Record<string, string | number>;
  error?: unknown;
  /** Seconds the service asked to wait (429). */
  wait?: number;
}

/**
 * Why the chosen files cannot go as they are (too many, one too large, all together too
 * large), said before anything is sent; null when they fit the inbox's limits.
 */
export function choiceProblem(picked: Picked[], grant: InboxGrant): Problem | null {
  if (picked.length > grant.max_files) return { key: "tooManyFiles", vars: { n: grant.max_files } };
  const big = picked.find((p) => p.file.size > grant.max_file_bytes);
  if (big)
    return { key: "tooLarge", vars: { name: big.name, size: formatBytes(grant.max_file_bytes) } };
  const total = picked.reduce((n, p) => n + p.file.size, 0);
  if (total > grant.max_parcel_bytes)
    return { key: "tooLargeAll", vars: { size: formatBytes(grant.max_parcel_bytes) } };
  return null;
}
