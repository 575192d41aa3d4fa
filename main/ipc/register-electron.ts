import type { IpcMain, IpcMainInvokeEvent } from "electron";
import { INVOKE_CHANNELS, type InvokeChannel } from "../../preload/contract.js";
import type { IpcHandlers, IpcSender } from "./handlers.js";

/** What the handlers need to know about a caller, read from Electron's event. */
function senderOf(event: IpcMainInvokeEvent): IpcSender {
  const frame = event.senderFrame;
  // A frame that navigated away or was destroyed has no URL: that refuses the call.
  return { url: frame?.url ?? "", frameIsMain: frame !== null && frame.parent === null };
}

/** Registers every handler on its channel; returns a function that removes them again. */
export function registerIpcHandlers(ipcMain: IpcMain, handlers: IpcHandlers): () => void {
  const names = Object.keys(INVOKE_CHANNELS) as InvokeChannel[];
  for (const name of names) {
    const handler = handlers[name];
    ipcMain.handle(INVOKE_CHANNELS[name], (event, ...args: unknown[]) =>
      handler(senderOf(event), ...args),
    );
  }
  return () => {
    for (const name of names) ipcMain.removeHandler(INVOKE_CHANNELS[name]);
  };
}
