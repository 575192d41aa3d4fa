import { MINUTE_MS } from "../../../server/contract/time-units.js";
/**
 * Until when this tab holds a pickup authorisation. The cookie itself is HttpOnly, so the page
 * remembers that it got one: a reload within the 10 minutes reopens the files, while a fresh
 * visit does not ask the service for a list it cannot have (a 401 in the console). No code or
 * password is kept, only the time.
 */
const GRANT_KEY = "gatehouse.parcel.pickupUntil";
const GRANT_TTL_MS = 10 * MINUTE_MS;

export function rememberGrant(on: boolean): void {
  try {
    if (on) sessionStorage.setItem(GRANT_KEY, String(Date.now() + GRANT_TTL_MS));
    else sessionStorage.removeItem(GRANT_KEY);
  } catch {
    // storage refused (private mode): a reload then asks for the code again
  }
}

export function holdsGrant(): boolean {
  try {
    return Number(sessionStorage.getItem(GRANT_KEY) ?? 0) > Date.now();
  } catch {
    return false;
  }
}
