import type { GatehouseDesktopApi } from "../../../preload/contract.js";

declare global {
  interface Window {
    /** Present only inside the desktop app (the preload's contextBridge object). */
    gatehouse?: GatehouseDesktopApi;
  }
}

export {};
