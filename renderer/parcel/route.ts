import { useSyncExternalStore } from "react";

/**
 * Hash routes of the parcel page: `#/` (send), `#/mine`, `#/pickup`, `#/pickup/<code>`,
 * `#/inbox/<code>` (a device sends to this computer's inbox), `#/admin`, `#/admin/<tab>`. The
 * pickup and inbox codes ride in the fragment, which browsers never send to a server. (The
 * desktop app's own screen is an app page, not a route of this one.)
 */
export type Area = "send" | "mine" | "pickup" | "inbox" | "admin";
export interface Route {
  area: Area;
  /** What follows the area: the pickup or inbox code, or the admin tab. */
  rest: string;
}

export function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("?")[0].split("/");
  const head = parts[0];
  const rest = decodeURIComponent(parts.slice(1).join("/"));
  if (head === "mine" || head === "pickup" || head === "inbox" || head === "admin")
    return { area: head, rest };
  return { area: "send", rest: "" };
}

let cachedHash = "";
let cached: Route = parseHash("");

function current(): Route {
  const hash = window.location.hash;
  if (hash !== cachedHash) {
    cachedHash = hash;
    cached = parseHash(hash);
  }
  return cached;
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener("hashchange", onChange);
  return () => window.removeEventListener("hashchange", onChange);
}

export function useRoute(): Route {
  return useSyncExternalStore(subscribe, current);
}

export function navigate(path: string): void {
  window.location.hash = `#/${path.replace(/^\/+/, "")}`;
}
