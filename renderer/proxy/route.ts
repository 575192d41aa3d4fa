import { useSyncExternalStore } from "react";

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

function current(): Route {
  const name = window.location.hash.replace(/^#\/?/, "").split(/[/?]/)[0];
  return (ROUTES as readonly string[]).includes(name) ? (name as Route) : "dashboard";
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener("hashchange", onChange);
  return () => window.removeEventListener("hashchange", onChange);
}

export function useRoute(): Route {
  return useSyncExternalStore(subscribe, current);
}

/** What follows the screen's name in the address (`#/devices/<id>` → the id), decoded. */
function rest(): string {
  const parts = window.location.hash.replace(/^#\/?/, "").split("/");
  try {
    return decodeURIComponent(parts.slice(1).join("/"));
  } catch {
    return "";
  }
}

export function useRouteRest(): string {
  return useSyncExternalStore(subscribe, rest);
}
