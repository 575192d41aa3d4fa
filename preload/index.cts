// Sandboxed preloads must be CommonJS; this file only bridges typed calls to IPC.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from "electron";
import type { GatehouseDesktopApi, ServiceInfo } from "./contract.js";

// Duplicated from contract.ts on purpose: a sandboxed preload cannot require local modules.
const CHANNELS = {
  info: "gatehouse:info",
  status: "gatehouse:status",
  openExternal: "gatehouse:open-external",
  tokenSave: "gatehouse:token-save",
  tokenGet: "gatehouse:token-get",
  tokenRemove: "gatehouse:token-remove",
  tokenList: "gatehouse:token-list",
  setupToken: "gatehouse:setup-token",
} as const;

const api = {
  app: {
    info: () => ipcRenderer.invoke(CHANNELS.info) as Promise<ServiceInfo>,
    onServiceStatus(listener: (info: ServiceInfo) => void) {
      const handler = (_event: IpcRendererEvent, info: ServiceInfo) => listener(info);
      ipcRenderer.on(CHANNELS.status, handler);
      return () => {
        ipcRenderer.removeListener(CHANNELS.status, handler);
      };
    },
    openExternal: (url: string) => ipcRenderer.invoke(CHANNELS.openExternal, url) as Promise<void>,
  },
  tokens: {
    save: (parcelId: string, token: string) =>
      ipcRenderer.invoke(CHANNELS.tokenSave, parcelId, token) as Promise<void>,
    get: (parcelId: string) =>
      ipcRenderer.invoke(CHANNELS.tokenGet, parcelId) as Promise<string | null>,
    remove: (parcelId: string) =>
      ipcRenderer.invoke(CHANNELS.tokenRemove, parcelId) as Promise<void>,
    list: () => ipcRenderer.invoke(CHANNELS.tokenList) as Promise<string[]>,
  },
  proxy: {
    setupToken: () => ipcRenderer.invoke(CHANNELS.setupToken) as Promise<string | null>,
  },
} satisfies GatehouseDesktopApi;

contextBridge.exposeInMainWorld("gatehouse", api);
