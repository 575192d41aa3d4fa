import { z } from "zod";
import { keep, stored } from "../../shared/storage.js";

/**
 * The upload in progress, remembered across a page reload so the sender can pick the same
 * files again and go on where the service stopped. Only what identifies the files is kept here
 * (no bytes, no secret): the parcel's manage token stays where every token is kept (see
 * ui/tokens.ts), and the page reads it from there.
 */
const KEY = "gatehouse.parcel.sending";

const RememberedFileSchema = z.object({
  /** The service's id of the file. */
  fileId: z.string(),
  /** The name sent to the service (may differ from the file's own when made unique). */
  name: z.string(),
  /** The chosen file's own name, size and time: how the same file is recognised again. */
  fileName: z.string(),
  size: z.number().int().min(0),
  lastModified: z.number(),
  done: z.boolean(),
  /** Bytes the service had stored when the page looked (not kept: asked again after a reload). */
  stored: z.number().int().min(0).optional(),
});

const RememberedSchema = z.object({
  id: z.string(),
  expiresAt: z.number(),
  files: z.array(RememberedFileSchema),
});

export type RememberedFile = z.infer<typeof RememberedFileSchema>;
export type Remembered = z.infer<typeof RememberedSchema>;

export function rememberUpload(upload: Remembered): void {
  keep(KEY, JSON.stringify(upload));
}

/** A session just created, remembered with the files chosen for it (in the manifest's order). */
export function rememberCreated(
  created: { id: string; expires_at: number; files: Array<{ id: string; name: string }> },
  chosen: File[],
): void {
  rememberUpload({
    id: created.id,
    expiresAt: created.expires_at,
    files: created.files.map((f, i) => ({
      fileId: f.id,
      name: f.name,
      fileName: chosen[i].name,
      size: chosen[i].size,
      lastModified: chosen[i].lastModified,
      done: false,
    })),
  });
}

/** The remembered upload, or null (none, unreadable, or its session ended by the clock). */
export function recallUpload(nowSeconds: number): Remembered | null {
  const raw = stored(KEY);
  if (!raw) return null;
  try {
    const upload = RememberedSchema.parse(JSON.parse(raw));
    if (upload.expiresAt > nowSeconds) return upload;
  } catch {
    // written by another build: nothing to resume from
  }
  forgetUpload();
  return null;
}

/** Notes that one file is stored in full, so a resume skips it. */
export function rememberDone(parcelId: string, fileId: string): void {
  const upload = recallUpload(0);
  if (!upload || upload.id !== parcelId) return;
  rememberUpload({
    ...upload,
    files: upload.files.map((f) => (f.fileId === fileId ? { ...f, done: true } : f)),
  });
}

/** Notes that one file was left out of the remembered upload (the service removed it). */
export function forgetFile(parcelId: string, fileId: string): void {
  const upload = recallUpload(0);
  if (!upload || upload.id !== parcelId) return;
  rememberUpload({ ...upload, files: upload.files.filter((f) => f.fileId !== fileId) });
}

export function forgetUpload(): void {
  try {
    localStorage.removeItem(KEY);
  } catch {
    // storage switched off: nothing was kept
  }
}

/** Whether `file` is the one remembered: same name, size and modification time. */
export function sameFile(remembered: RememberedFile, file: File): boolean {
  return (
    remembered.fileName === file.name &&
    remembered.size === file.size &&
    remembered.lastModified === file.lastModified
  );
}

/**
 * Sorts chosen files into those of the remembered upload still to send (by file id) and the
 * rest (refused). A file already stored, or chosen twice, is neither needed nor refused.
 */
export function matchFiles(
  upload: Remembered,
  files: Iterable<File>,
): { matched: Map<string, File>; refused: File[] } {
  const matched = new Map<string, File>();
  const refused: File[] = [];
  for (const file of files) {
    const same = upload.files.filter((f) => sameFile(f, file));
    if (same.length === 0) {
      refused.push(file);
      continue;
    }
    const open = same.find((f) => !f.done && !matched.has(f.fileId));
    if (open) matched.set(open.fileId, file);
  }
  return { matched, refused };
}
