// Sandboxed preloads must be one CommonJS file that requires nothing but `electron`:
// `npm run build:preload` bundles this file and the channel names it imports from contract.ts.
// It only bridges typed calls to IPC and unwraps main's replies.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from "electron";
import {
  EVENT_CHANNELS,
  INVOKE_CHANNELS,
  type GatehouseDesktopApi,
  type IpcReply,
  type ServiceInfo,
} from "./contract.js";

type Channel = (typeof INVOKE_CHANNELS)[keyof typeof INVOKE_CHANNELS];

async function invoke<T>(channel: Channel, ...args: unknown[]): Promise<T> {
  const reply = (await ipcRenderer.invoke(channel, ...args)) as IpcReply<T>;
  if (reply.ok) return reply.value;
  // Only the message survives the context bridge; the code leads it so a page can still tell.
  throw new Error(`${reply.code}: ${reply.message}`);
}

const api = {
  app: {
    info: () => invoke<ServiceInfo>(INVOKE_CHANNELS.info),
    onServiceStatus(listener: (info: ServiceInfo) => void) {
      const handler = (_event: IpcRendererEvent, info: ServiceInfo) => listener(info);
      ipcRenderer.on(EVENT_CHANNELS.status, handler);
      return () => {
        ipcRenderer.removeListener(EVENT_CHANNELS.status, handler);
      };
    },
    openExternal: (url: string) => invoke<void>(INVOKE_CHANNELS.openExternal, url),
    open: (area) => invoke<void>(INVOKE_CHANNELS.open, area),
  },
  tokens: {
    save: (parcelId: string, token: string) =>
      invoke<void>(INVOKE_CHANNELS.tokenSave, parcelId, token),
    remove: (parcelId: string) => invoke<void>(INVOKE_CHANNELS.tokenRemove, parcelId),
    list: () => invoke<string[]>(INVOKE_CHANNELS.tokenList),
  },
  proxy: {
    setupToken: () => invoke<string | null>(INVOKE_CHANNELS.setupToken),
  },
  operator: {
    revealPassword: (service) => invoke(INVOKE_CHANNELS.operatorRevealPassword, service),
    changePassword: (service, currentPassword, newPassword) =>
      invoke(INVOKE_CHANNELS.operatorChangePassword, service, currentPassword, newPassword),
    rememberPassword: (service, password) =>
      invoke(INVOKE_CHANNELS.operatorRememberPassword, service, password),
    keepsPassword: (service, password) =>
      invoke(INVOKE_CHANNELS.operatorKeepsPassword, service, password),
  },
  settings: {
    get: () => invoke(INVOKE_CHANNELS.settingsGet),
    set: (patch) => invoke(INVOKE_CHANNELS.settingsSet, patch),
  },
  entries: {
    list: () => invoke(INVOKE_CHANNELS.entriesList),
    choose: (interfaces) => invoke(INVOKE_CHANNELS.entriesChoose, interfaces),
  },
  inbox: {
    view: () => invoke(INVOKE_CHANNELS.inboxView),
    open: (minutes, password) => invoke(INVOKE_CHANNELS.inboxOpen, minutes, password),
    close: () => invoke(INVOKE_CHANNELS.inboxClose),
    showInFolder: (id) => invoke(INVOKE_CHANNELS.inboxShowInFolder, id),
    chooseFolder: () => invoke(INVOKE_CHANNELS.inboxChooseFolder),
  },
} satisfies GatehouseDesktopApi;

contextBridge.exposeInMainWorld("gatehouse", api);
