/**
 * The API the desktop preload exposes to the web UIs as `window.gatehouse`. The renderer
 * imports only this type; it never sees an IPC channel name. In a plain browser on the LAN
 * `window.gatehouse` is undefined and the UIs work without it.
 */
export interface ServiceInfo {
  parcel: { url: string; entries: string[] } | null;
  proxy: { url: string } | null;
  dataDir: string;
  error: string | null;
}

export interface GatehouseDesktopApi {
  app: {
    info(): Promise<ServiceInfo>;
    /** Called whenever the embedded services start, stop or fail; returns an unsubscribe function. */
    onServiceStatus(listener: (info: ServiceInfo) => void): () => void;
    openExternal(url: string): Promise<void>;
  };
  tokens: {
    /** Keeps a parcel's manage_token in the OS keychain. */
    save(parcelId: string, token: string): Promise<void>;
    get(parcelId: string): Promise<string | null>;
    remove(parcelId: string): Promise<void>;
    list(): Promise<string[]>;
  };
  proxy: {
    /** The first-setup token, read by the desktop itself so the operator never types it. */
    setupToken(): Promise<string | null>;
  };
}

/** IPC channel names; shared by main and preload only. */
export const CHANNELS = {
  info: "gatehouse:info",
  status: "gatehouse:status",
  openExternal: "gatehouse:open-external",
  tokenSave: "gatehouse:token-save",
  tokenGet: "gatehouse:token-get",
  tokenRemove: "gatehouse:token-remove",
  tokenList: "gatehouse:token-list",
  setupToken: "gatehouse:setup-token",
} as const;
