import type { z } from "zod";
import { BackupFileSchema } from "../../../server/contract/proxy.js";

/** What a file chosen for restoring holds, read on this device before anything is asked. */
export type BackupCheck =
  | {
      kind: "backup";
      /** The backup as it will be sent: the file's own JSON, which the schema took. */
      body: z.input<typeof BackupFileSchema>;
      /** When it was made (RFC 3339), when the file says. */
      exportedAt: string | null;
      subscriptions: number;
      rules: number;
    }
  | { kind: "not_json" }
  | { kind: "not_backup" }
  | { kind: "other_version" };

/**
 * Reads a chosen file with the contract's backup schema: not JSON, not a backup's shape, a
 * backup of another version, or a backup and what it holds. The service checks it again (and
 * every field of it) when it is sent.
 */
export function checkBackup(text: string): BackupCheck {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: "not_json" };
  }
  const read = BackupFileSchema.safeParse(body);
  if (read.success) {
    return {
      kind: "backup",
      body: body as z.input<typeof BackupFileSchema>,
      exportedAt: read.data.exportedAt ?? null,
      subscriptions: read.data.state.subscriptions.length,
      rules: read.data.state.rules.length,
    };
  }
  const version = (body as { version?: unknown } | null)?.version;
  const hasState = typeof (body as { state?: unknown } | null)?.state === "object";
  return version !== undefined && version !== 1 && hasState
    ? { kind: "other_version" }
    : { kind: "not_backup" };
}
