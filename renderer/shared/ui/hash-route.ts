import { useSyncExternalStore } from "react";

function subscribe(onChange: () => void): () => void {
  window.addEventListener("hashchange", onChange);
  return () => window.removeEventListener("hashchange", onChange);
}

/**
 * The pages' hash router: a hook that reads the address's fragment through `parse` and follows
 * every change. The parsed value is kept until the fragment changes, so an object route does
 * not re-render its readers on every look.
 */
export function hashRouter<R>(parse: (hash: string) => R): () => R {
  let cachedHash: string | null = null;
  let cached: R;
  const current = (): R => {
    const hash = window.location.hash;
    if (hash !== cachedHash) {
      cachedHash = hash;
      cached = parse(hash);
    }
    return cached;
  };
  return () => useSyncExternalStore(subscribe, current);
}

export function navigate(path: string): void {
  window.location.hash = `#/${path.replace(/^\/+/, "")}`;
}
