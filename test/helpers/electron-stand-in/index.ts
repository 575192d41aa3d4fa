import { register } from "node:module";

/**
 * Loads the real electron-store in plain Node: its `import electron from "electron"` is sent to
 * a small stand-in (./electron.mjs) by a resolution hook registered once per process, so the
 * store's own file naming, its conf and conf's validation are what a test exercises.
 */

interface StandInState {
  userData: string | null;
  version: string;
}

const KEY = Symbol.for("gatehouse.electron-stand-in");

let registered = false;

function registerOnce(): void {
  if (registered) return;
  register("./hooks.mjs", import.meta.url);
  registered = true;
}

/** electron-store's default export, with `app.getPath("userData")` answering `userData`. */
export async function loadElectronStore(
  userData: string,
): Promise<typeof import("electron-store").default> {
  registerOnce();
  const shared = globalThis as unknown as Record<symbol, StandInState | undefined>;
  shared[KEY] = { ...(shared[KEY] ?? { version: "0.0.0-test" }), userData };
  return (await import("electron-store")).default;
}
