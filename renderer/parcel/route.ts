import { hashRouter } from "../shared/ui/hash-route.js";

export { navigate } from "../shared/ui/hash-route.js";

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

export const useRoute = hashRouter(parseHash);
