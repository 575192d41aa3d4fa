/** Who sent an IPC call: the URL of the frame that called, and whether it is the top frame. */
export interface IpcSender {
  url: string;
  /** False for a subframe; the services' pages have none, so only top frames are served. */
  frameIsMain?: boolean;
}

function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
    return parsed.origin;
  } catch {
    return null;
  }
}

/**
 * Whether the caller is one of the services' own pages: its origin (scheme, host and port) is
 * exactly one of `origins`. A prefix or a host alone is not enough (`http://127.0.0.1:8000`
 * must not admit `http://127.0.0.1:80001` or a page on another port), and `data:`, `file:`
 * and `about:` pages never qualify.
 */
export function isOwnSender(sender: IpcSender, origins: readonly string[]): boolean {
  if (sender.frameIsMain === false) return false;
  const origin = originOf(sender.url);
  if (origin === null) return false;
  return origins.some((own) => originOf(own) === origin);
}
