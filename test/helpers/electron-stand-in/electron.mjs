/**
 * A stand-in for the `electron` module, for tests that load electron-store (which imports
 * `electron` at the top) in plain Node. Only what electron-store asks of the main process is
 * here: `app.getPath("userData")`, `app.getVersion()` and `ipcMain.on`. Tests say where the
 * user-data folder through `loadElectronStore(dir)` (./index.ts), which sets the shared state
 * below: the test's own copy of this module and the one electron-store gets through the
 * resolution hook are two instances, so the state lives on `globalThis`. Never shipped.
 */
const KEY = Symbol.for("gatehouse.electron-stand-in");
globalThis[KEY] ??= { userData: null, version: "0.0.0-test" };
const state = globalThis[KEY];

export const app = {
  getPath(name) {
    if (name !== "userData") throw new Error(`the electron stand-in has no path "${name}"`);
    if (!state.userData) throw new Error("the electron stand-in has no user-data folder yet");
    return state.userData;
  },
  getVersion: () => state.version,
};

export const ipcMain = { on: () => undefined };
export const shell = {
  openPath: async () => "the electron stand-in opens nothing",
};

export default { app, ipcMain, shell };
