import { hashRouter } from "../shared/ui/hash-route.js";

export const ROUTES = [
  "dashboard",
  "subscriptions",
  "nodes",
  "rules",
  "settings",
  "devices",
  "connections",
  "logs",
  "system",
] as const;
export type Route = (typeof ROUTES)[number];

/** The screen the address names (`#/rules`); the dashboard for anything else. */
export const useRoute = hashRouter((hash): Route => {
  const name = hash.replace(/^#\/?/, "").split(/[/?]/)[0];
  return (ROUTES as readonly string[]).includes(name) ? (name as Route) : "dashboard";
});

/** What follows the screen's name in the address (`#/devices/<id>` → the id), decoded. */
export const useRouteRest = hashRouter((hash): string => {
  const parts = hash.replace(/^#\/?/, "").split("/");
  try {
    return decodeURIComponent(parts.slice(1).join("/"));
  } catch {
    return "";
  }
});
