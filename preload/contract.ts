/**
 * The API the desktop preload exposes to the web UIs as `window.gatehouse`, and the one
 * definition of its IPC channel names (the preload is bundled, so it imports them from here).
 * The renderer imports only the types; it never sees a channel name. In a plain browser on
 * the LAN `window.gatehouse` is undefined and the UIs work without it.
 */
import type { EntriesView } from "../main/app/desktop-app.js";
import type { InboxDesktopView } from "../main/inbox/keeper.js";
import type { OperatorService, PasswordRefusalCode } from "../main/operator/types.js";
import type { DesktopSettings } from "../main/settings/schema.js";
import type { RestartPlan, SettingsError } from "../main/settings/validate.js";

export type { EntriesView, InboxDesktopView, OperatorService, SettingsError };

/** Where the desktop keeps secrets (tokens, passwords), as the settings screen says it. */
export type SecretStoreStatus =
  | { kind: "keychain" }
  /** `cause` "library": the keychain library of this build does not load on this computer. */
  | { kind: "encrypted-file"; cause?: "library" | "keychain" }
  | { kind: "refused"; code: string; message: string };

/**
 * Whether the tray icon is really seen (`reason` when not: no StatusNotifier host on this
 * Linux desktop, or no session bus to ask); without it, closing the window quits.
 */
export type TrayStatus =
  { available: true } | { available: false; reason: "no_status_notifier" | "no_session_bus" };

export interface ServiceInfo {
  parcel: { url: string; entries: string[] } | null;
  proxy: { url: string } | null;
  dataDir: string;
  error: string | null;
  /** The secret store chosen at start (absent from builds that do not say it). */
  secrets?: SecretStoreStatus;
  /** Whether a tray icon can be seen (absent from builds that do not say it). */
  tray?: TrayStatus;
}

/**
 * A password change or a remembered password. On success the window's session already holds
 * the new sign-in (its cookies never reach the page); a refusal says why in one sentence.
 */
export type DesktopPasswordResult =
  | { ok: true }
  | {
      ok: false;
      code: PasswordRefusalCode;
      message: string;
      /** The service's own error code and values, when the service refused. */
      serviceCode?: string;
      params?: Record<string, unknown>;
    };

/** Desktop settings as plain JSON; the settings module defines and checks the members. */
export type DesktopSettingsView = DesktopSettings;

/** A settings change: stored (and whether the services restart for it), or field errors. */
export type DesktopSettingsResult =
  | { ok: true; settings: DesktopSettings; plan: RestartPlan }
  | { ok: false; errors: SettingsError[] };

/** What the window can be asked to show: an area of the services, or the Desktop screen. */
export type OpenArea = "window" | "send" | "mine" | "admin" | "proxy" | "settings";

export interface GatehouseDesktopApi {
  app: {
    info(): Promise<ServiceInfo>;
    /** Shows an area in the window ("settings": the Desktop screen, an app page). */
    open(area: OpenArea): Promise<void>;
    /** Called whenever the embedded services start, stop or fail; returns an unsubscribe function. */
    onServiceStatus(listener: (info: ServiceInfo) => void): () => void;
    openExternal(url: string): Promise<void>;
  };
  tokens: {
    /** Keeps a parcel's manage_token in the OS keychain. */
    save(parcelId: string, token: string): Promise<void>;
    remove(parcelId: string): Promise<void>;
    /** Ids of the parcels whose tokens are kept (nothing else the keychain holds). */
    list(): Promise<string[]>;
  };
  proxy: {
    /** The first-setup token, read by the desktop itself so the operator never types it. */
    setupToken(): Promise<string | null>;
  };
  operator: {
    /**
     * The administrator password the desktop keeps for a console, or null when it has none.
     * The Desktop screen only: the services' pages are refused.
     */
    revealPassword(service: OperatorService): Promise<string | null>;
    /** Whether the desktop keeps exactly this password for the console (never the password). */
    keepsPassword(service: OperatorService, password: string): Promise<boolean>;
    changePassword(
      service: OperatorService,
      currentPassword: string,
      newPassword: string,
    ): Promise<DesktopPasswordResult>;
    /** Keeps a password the operator knows (checked by signing in with it first). */
    rememberPassword(service: OperatorService, password: string): Promise<DesktopPasswordResult>;
  };
  settings: {
    get(): Promise<DesktopSettingsView>;
    /** Changes the given members; answers what the settings module answers. */
    set(patch: Partial<DesktopSettingsView>): Promise<DesktopSettingsResult>;
  };
  entries: {
    /** The machine's network interfaces and which of them are parcel entries. */
    list(): Promise<EntriesView>;
    /** Makes exactly these interfaces (by name) the parcel's LAN entries. */
    choose(interfaces: string[]): Promise<DesktopSettingsResult>;
  };
  /** The inbox LAN devices send to (the Desktop screen only). */
  inbox: {
    /** The inbox, the folder received files go to, and the deliveries, newest first. */
    view(): Promise<InboxDesktopView>;
    /** Opens the inbox (or gives it a new code) for `minutes`, with a password or none. */
    open(minutes: number, password: string | null): Promise<void>;
    close(): Promise<void>;
    /** Shows a delivery's saved file in the system's file manager. */
    showInFolder(deliveryId: string): Promise<void>;
    /** Lets the operator pick the folder (a system dialog); the chosen path, or null. */
    chooseFolder(): Promise<string | null>;
  };
}

/** Channels the page invokes (`ipcRenderer.invoke`); each has one checked handler in main. */
export const INVOKE_CHANNELS = {
  info: "gatehouse:info",
  open: "gatehouse:app.open",
  openExternal: "gatehouse:open-external",
  tokenSave: "gatehouse:token-save",
  tokenRemove: "gatehouse:token-remove",
  tokenList: "gatehouse:token-list",
  setupToken: "gatehouse:setup-token",
  operatorRevealPassword: "gatehouse:operator.reveal-password",
  operatorChangePassword: "gatehouse:operator.change-password",
  operatorRememberPassword: "gatehouse:operator.remember-password",
  operatorKeepsPassword: "gatehouse:operator.keeps-password",
  settingsGet: "gatehouse:settings.get",
  settingsSet: "gatehouse:settings.set",
  entriesList: "gatehouse:entries.list",
  entriesChoose: "gatehouse:entries.choose",
  inboxView: "gatehouse:inbox.view",
  inboxOpen: "gatehouse:inbox.open",
  inboxClose: "gatehouse:inbox.close",
  inboxShowInFolder: "gatehouse:inbox.show-in-folder",
  inboxChooseFolder: "gatehouse:inbox.choose-folder",
} as const;

/** Channels main sends to the page (`webContents.send`). */
export const EVENT_CHANNELS = {
  status: "gatehouse:status",
} as const;

/** IPC channel names; shared by main and preload only. */
export const CHANNELS = { ...INVOKE_CHANNELS, ...EVENT_CHANNELS } as const;

export type InvokeChannel = keyof typeof INVOKE_CHANNELS;

/** Why main refused a call (besides refusals a result type carries itself). */
export type IpcRefusalCode =
  "ipc.foreign_sender" | "ipc.bad_arguments" | "ipc.failed" | "secrets.no_keychain";

/**
 * What every handler answers over IPC. The preload unwraps it: the value, or an Error with
 * the refusal's sentence (Electron keeps only an Error's message across the bridge).
 */
export type IpcReply<T = unknown> =
  { ok: true; value: T } | { ok: false; code: IpcRefusalCode; message: string };
