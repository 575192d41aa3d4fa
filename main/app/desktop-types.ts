import type { DetectedInterface } from "../entries/detect.js";
import type { LanEntry } from "../entries/entries.js";
import type { InterfaceWatcher } from "../entries/watch.js";
import type { ServiceHost } from "../host/service-host.js";
import type { DesktopNotification } from "../notify/notifications.js";
import type { DesktopCookie } from "../operator/cookies.js";
import type { Operator } from "../operator/operator.js";
import type { SecretStore } from "../secrets/keychain.js";
import type { DesktopSettings } from "../settings/schema.js";
import type { SettingsStore } from "../settings/store.js";
import type { TrayItem } from "../tray/model.js";

/** The shapes around `DesktopApp` (desktop-app.ts): what it is given and what it answers. */

/** What the app asks of Electron (or of a test). */
export interface DesktopShell {
  /** Shows a page of the services in the window. */
  showUrl(url: string): void;
  /**
   * Shows a sentence in place of the services. `details` is the services' own English
   * account of a failure, for a folded "technical details" part.
   */
  showMessage(kind: "starting" | "failed", text: string, details?: string): void;
  /** Puts cookies in the window's own session (never a page's reach). */
  setCookies(cookies: DesktopCookie[]): Promise<void>;
  notify(notification: DesktopNotification): void;
  setTray(items: TrayItem[], tooltip: string): void;
  /** Language or theme changed: the shell tells the pages. */
  appearanceChanged(settings: Pick<DesktopSettings, "language" | "theme">): void;
  /** The login item / autostart entry for the current settings. */
  applyStartAtLogin(settings: DesktopSettings): void;
  copyText(text: string): void;
  showQr(url: string): void;
  /** Shows a saved file in the system's file manager ("Show in folder"). */
  showInFolder(path: string): void;
  quit(): void;
  log(line: string): void;
}

export interface DesktopAppOptions {
  host: ServiceHost;
  settings: SettingsStore;
  secrets: SecretStore;
  operator: Operator;
  interfaces: InterfaceWatcher;
  shell: DesktopShell;
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** The system's locale (`app.getLocale()`), for the "system" language. */
  systemLocale: string;
  /** The system's Downloads folder (received files go to its Gatehouse folder by default). */
  downloadsDir?: string;
  fetch?: typeof fetch;
}

export interface EntriesView {
  interfaces: DetectedInterface[];
  chosen: DesktopSettings["entries"];
  lan: LanEntry[];
  /** The machine's LAN name (`<hostname>.local`) as an address, when it resolves here. */
  lanName: LanEntry | null;
  /** Chosen addresses this computer does not have now. */
  missing: string[];
}
