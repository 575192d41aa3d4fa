import { isAppUrl } from "../app-protocol.js";

/** Who sent an IPC call: the URL of the frame that called, and whether it is the top frame. */
export interface IpcSender {
  url: string;
  /** False for a subframe; no page of the app or the services has one, so only top frames count. */
  frameIsMain?: boolean;
}

/**
 * What a caller is, from its frame's URL (Electron's `event.senderFrame.url`; empty when the
 * frame navigated away or is gone):
 * - `app`: one of the app's own pages (`app://gatehouse/...`), bundled with the app and never
 *   served by the services, so nothing on the LAN can load it;
 * - `service`: a page of the services (the window shows them), whose origin is exactly one of
 *   theirs: the same pages every LAN device loads, so one script injection there must not
 *   reach a secret;
 * - `foreign`: anything else (another origin, `data:`, `file:`, `about:blank`, a subframe).
 */
export type SenderKind = "app" | "service" | "foreign";

function httpOrigin(url: string): string | null {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
    return parsed.origin;
  } catch {
    return null;
  }
}

export function senderKind(sender: IpcSender, serviceOrigins: readonly string[]): SenderKind {
  if (sender.frameIsMain === false) return "foreign";
  if (isAppUrl(sender.url)) return "app";
  const origin = httpOrigin(sender.url);
  // Exactly one of theirs: `http://127.0.0.1:8000` admits neither `:80001` nor another port.
  if (origin !== null && serviceOrigins.some((own) => httpOrigin(own) === origin)) return "service";
  return "foreign";
}

/**
 * Who may use a channel: `app` channels reveal or change what the operator keeps (passwords,
 * the setup token, the list of kept tokens, a token itself, settings beyond the look, LAN
 * addresses); `window` channels serve the services' pages in the window too and reveal none.
 */
export type Audience = "app" | "window";

export function mayCall(kind: SenderKind, audience: Audience): boolean {
  if (kind === "app") return true;
  return kind === "service" && audience === "window";
}
