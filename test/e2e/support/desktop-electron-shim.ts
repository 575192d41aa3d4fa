/**
 * Stands in for the `electron` module when the real preload (preload/index.cts) is bundled for
 * a Playwright page: `ipcRenderer.invoke` goes through a Playwright binding to the real main-
 * side handlers, so only the IPC transport differs from the app. Bundled into the page; it
 * never runs in Node.
 */
type Listener = (event: unknown, ...args: unknown[]) => void;

interface BridgeWindow {
  /** Installed by `context.exposeBinding` (see desktop-bridge.ts). */
  __gatehouseInvoke(channel: string, args: unknown[]): Promise<unknown>;
  /** Lets the test deliver what main would send (`webContents.send`). */
  __gatehouseEmit?: (channel: string, payload: unknown) => void;
}

const page = window as unknown as BridgeWindow;
const listeners = new Map<string, Set<Listener>>();

page.__gatehouseEmit = (channel, payload) => {
  for (const listener of listeners.get(channel) ?? []) listener({}, payload);
};

export const contextBridge = {
  exposeInMainWorld(name: string, api: unknown): void {
    // The context bridge hands pages a frozen copy; a page cannot swap the functions either.
    Object.defineProperty(window, name, { value: Object.freeze(api), enumerable: true });
  },
};

export const ipcRenderer = {
  invoke: (channel: string, ...args: unknown[]) => page.__gatehouseInvoke(channel, args),
  on(channel: string, listener: Listener): void {
    const set = listeners.get(channel) ?? new Set<Listener>();
    set.add(listener);
    listeners.set(channel, set);
  },
  removeListener(channel: string, listener: Listener): void {
    listeners.get(channel)?.delete(listener);
  },
};

export type IpcRendererEvent = unknown;
