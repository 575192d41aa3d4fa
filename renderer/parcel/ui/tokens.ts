import { create } from "zustand";
import { keep, stored } from "../../shared/storage.js";

/**
 * Where a parcel's `manage_token` lives. In a browser: localStorage keyed by parcel id (the
 * visitor cookie is the usual proof of ownership; the token is the fallback when it is gone,
 * and never leaves this device or goes in a URL). In the desktop app: the OS keychain only,
 * and this page never reads it back: these pages are the ones every LAN device loads, so the
 * app attaches a kept token to the window's own requests for the parcel instead. When the
 * keychain refuses, the token is kept in this window's memory for its life and the pages say
 * so; it is never written to localStorage, which is plain text on disk.
 */
const PREFIX = "gatehouse.parcel.token.";

/** Why the desktop's keychain refused, as main said it (code and sentence). */
export interface KeychainRefusal {
  code: string;
  message: string;
}

interface KeychainState {
  /** Set once the desktop refused to keep a token (or to list them). */
  refusal: KeychainRefusal | null;
}

/** What the pages know about the desktop's keychain (nothing in a browser). */
export const useKeychain = create<KeychainState>(() => ({ refusal: null }));

/** Tokens the keychain would not take: for this window's life only. */
const memory = new Map<string, string>();

function desktopTokens() {
  return typeof window === "undefined" ? undefined : window.gatehouse?.tokens;
}

/** True inside the desktop app, where tokens go to the keychain. */
export function inDesktop(): boolean {
  return desktopTokens() !== undefined;
}

/**
 * The preload turns main's refusals into `Error("<code>: <sentence>")` (only a message crosses
 * the context bridge); anything else is a failure without a code.
 */
export function refusalOf(err: unknown): KeychainRefusal {
  const text = err instanceof Error ? err.message : String(err);
  const m = /^([a-z]+(?:\.[a-z_]+)+): (.*)$/s.exec(text);
  return m ? { code: m[1], message: m[2] } : { code: "ipc.failed", message: text };
}

function refused(err: unknown): void {
  useKeychain.setState({ refusal: refusalOf(err) });
}

export async function saveToken(parcelId: string, token: string): Promise<void> {
  const desktop = desktopTokens();
  if (!desktop) {
    keep(PREFIX + parcelId, token);
    return;
  }
  try {
    await desktop.save(parcelId, token);
    memory.delete(parcelId);
  } catch (err) {
    memory.set(parcelId, token);
    refused(err);
  }
}

/**
 * The token to send with an owner request, if the page has one: in a browser the stored one;
 * in the desktop app only one this window keeps in memory (the keychain refused it): a token
 * the keychain holds is the app's to attach, and undefined here.
 */
export async function loadToken(parcelId: string): Promise<string | undefined> {
  if (!desktopTokens()) return stored(PREFIX + parcelId) ?? undefined;
  return memory.get(parcelId);
}

export async function forgetToken(parcelId: string): Promise<void> {
  const desktop = desktopTokens();
  memory.delete(parcelId);
  if (desktop) {
    try {
      await desktop.remove(parcelId);
    } catch {
      // Nothing kept there (the keychain refused it too): the memory copy is gone already.
    }
  }
  try {
    localStorage.removeItem(PREFIX + parcelId);
  } catch {
    // private mode
  }
}

/**
 * Desktop only: ids of the parcels whose tokens this app keeps (the keychain's, plus this
 * window's memory when the keychain refused). Also asks the keychain whether it works at all,
 * so a page can say it refuses before a parcel is sent.
 */
export async function keptTokenIds(): Promise<string[]> {
  const desktop = desktopTokens();
  if (!desktop) return [];
  let ids: string[] = [];
  try {
    ids = await desktop.list();
    useKeychain.setState({ refusal: null });
  } catch (err) {
    refused(err);
  }
  return [...new Set([...ids, ...memory.keys()])];
}

/**
 * Desktop only: tokens an earlier build left in localStorage (it fell back there silently
 * when the keychain refused) move into the keychain. Where it refuses they move to this
 * window's memory instead: either way none stays in plain text on disk.
 */
export async function adoptStoredTokens(): Promise<number> {
  const desktop = desktopTokens();
  if (!desktop) return 0;
  let keys: string[];
  try {
    keys = Object.keys(localStorage).filter((k) => k.startsWith(PREFIX));
  } catch {
    return 0;
  }
  let moved = 0;
  for (const key of keys) {
    const token = stored(key);
    const id = key.slice(PREFIX.length);
    if (token) {
      try {
        await desktop.save(id, token);
        moved++;
      } catch (err) {
        memory.set(id, token);
        refused(err);
      }
    }
    try {
      localStorage.removeItem(key);
    } catch {
      // storage switched off meanwhile: nothing more to remove
    }
  }
  return moved;
}
