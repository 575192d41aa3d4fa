import { keep, stored } from "../../shared/storage.js";

/**
 * Where a parcel's `manage_token` lives: the OS keychain in the desktop app, localStorage
 * keyed by parcel id in a browser. Ownership also rides on the visitor cookie; the token is
 * the fallback when that cookie is gone (it never leaves this device, never goes in a URL).
 */
const PREFIX = "gatehouse.parcel.token.";

export async function saveToken(parcelId: string, token: string): Promise<void> {
  const desktop = window.gatehouse?.tokens;
  if (desktop) {
    try {
      await desktop.save(parcelId, token);
      return;
    } catch {
      // keychain unavailable: keep it like a browser would
    }
  }
  keep(PREFIX + parcelId, token);
}

export async function loadToken(parcelId: string): Promise<string | undefined> {
  const desktop = window.gatehouse?.tokens;
  if (desktop) {
    try {
      const token = await desktop.get(parcelId);
      if (token) return token;
    } catch {
      // fall back to local storage
    }
  }
  return stored(PREFIX + parcelId) ?? undefined;
}

export async function forgetToken(parcelId: string): Promise<void> {
  try {
    await window.gatehouse?.tokens.remove(parcelId);
  } catch {
    // nothing to remove
  }
  try {
    localStorage.removeItem(PREFIX + parcelId);
  } catch {
    // private mode
  }
}
