/**
 * The files of a drop, leaving out folders (they arrive as unreadable zero-byte entries);
 * returns how many folders were left out.
 */
export function filesOfDrop(dt: DataTransfer): { files: File[]; folders: number } {
  const files: File[] = [];
  let folders = 0;
  const items = Array.from(dt.items ?? []).filter((i) => i.kind === "file");
  if (items.length === 0) return { files: Array.from(dt.files), folders: 0 };
  for (const item of items) {
    const entry = item.webkitGetAsEntry?.();
    if (entry?.isDirectory) {
      folders++;
      continue;
    }
    const file = item.getAsFile();
    if (file) files.push(file);
  }
  return { files, folders };
}

/** `photo.jpg` → `photo (2).jpg`: the service wants names unique regardless of case. */
export function uniqueName(name: string, taken: Set<string>): string {
  if (!taken.has(name.toLowerCase())) return name;
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : "";
  for (let i = 2; ; i++) {
    const candidate = `${stem} (${i})${ext}`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}
