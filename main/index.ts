import {
  app,
  BrowserWindow,
  clipboard,
  dialog,
  ipcMain,
  nativeTheme,
  Notification,
  session,
  shell as electronShell,
} from "electron";
import { join } from "node:path";
import { EVENT_CHANNELS, type SecretStoreStatus, type ServiceInfo } from "../preload/contract.js";
import { DesktopApp, type DesktopShell } from "./app/desktop-app.js";
import { watchInterfaces } from "./entries/watch.js";
import { headlessArgs, relaunchHeadless, startHeadless } from "./headless.js";
import { AppTray } from "./electron/tray-electron.js";
import { createMainWindow, secureSession, showMessagePage } from "./electron/window-electron.js";
import {
  attachOwnerTokens,
  registerAppScheme,
  serveAppPages,
} from "./electron/protocol-electron.js";
import { bundledCore, openSecrets, openSettings } from "./electron/startup-electron.js";
import { messagePage } from "./app/message-page.js";
import { DESKTOP_UI_DIR } from "./app-protocol.js";
import { forkForApp, serviceEntry } from "./host/fork-electron.js";
import type { HostInfo } from "./host/service-host.js";
import { ServiceHost } from "./host/service-host.js";
import { translator } from "./i18n.js";
import type { SecretStore } from "./secrets/keychain.js";
import {
  appUserModelId,
  closeAction,
  headlessRelaunchArgs,
  RELAUNCHED_ENV,
  sandboxNote,
  startWindowPlan,
  trayAvailability,
  trayIconName,
  type TrayAvailability,
} from "./platform.js";
import { statusNotifierWatcherOwned } from "./status-notifier.js";
import { createIpcHandlers } from "./ipc/handlers.js";
import { registerIpcHandlers } from "./ipc/register-electron.js";
import { createOperator, type Operator } from "./operator/operator.js";
import { applyAutostart, startsHidden } from "./settings/autostart.js";
import type { DesktopSettings } from "./settings/schema.js";
import { servicesEnv } from "./settings/services-args.js";
import { repairNotice, type SettingsRepair } from "./settings/repair.js";
import { readSettings, type SettingsStore } from "./settings/store.js";

/**
 * Electron wiring only: every decision lives in modules Node tests load (main/app, host,
 * operator, secrets, settings, entries, tray, notify, ipc). Read top to bottom: one instance,
 * settings, secrets, the services host, the window and tray, IPC, quit.
 */

function toServiceInfo(
  info: HostInfo,
  secrets: SecretStoreStatus,
  tray: TrayAvailability,
): ServiceInfo {
  return {
    parcel: info.parcel && { url: info.parcel.url, entries: info.parcel.entries },
    proxy: info.proxy,
    dataDir: info.dataDir,
    error: info.error,
    secrets,
    tray,
  };
}

/** Asks the session bus for a StatusNotifier host (Linux only; elsewhere a tray is always seen). */
async function probeTray(): Promise<TrayAvailability> {
  if (process.platform !== "linux") return trayAvailability(process.platform, null);
  return trayAvailability(process.platform, await statusNotifierWatcherOwned());
}

/** What the window, the tray and their handlers share for the life of the app. */
interface MainContext {
  appPath: string;
  store: SettingsStore;
  /** Whether a tray host answers; asked again when the window is used. */
  trayStatus: TrayAvailability;
  /** Whether the first window starts hidden (a start at login, or the setting). */
  hidden: boolean;
  win: BrowserWindow | null;
  windowShown: boolean;
  quitting: boolean;
  tray: AppTray | null;
  desktop: DesktopApp | null;
  /** The start-up or failure sentence app://gatehouse/message shows. */
  message: string;
}

const settingsOf = (ctx: MainContext): DesktopSettings => readSettings(ctx.store);

/** The origins the window may show: the services' own. */
const originsOf = (ctx: MainContext): string[] => ctx.desktop?.origins() ?? [];

const closing = (ctx: MainContext): "hide" | "quit" =>
  closeAction({ closeToTray: settingsOf(ctx).closeToTray, tray: ctx.trayStatus });

/** The one main window: the open one, or a new one (only the first may start hidden). */
function openWindow(ctx: MainContext): BrowserWindow {
  if (ctx.win) return ctx.win;
  const bounds = settingsOf(ctx).window;
  // Only the first window may start hidden; one opened later (from the tray) shows.
  const plan = startWindowPlan({
    hidden: ctx.hidden && !ctx.windowShown,
    maximized: bounds.maximized,
    tray: ctx.trayStatus,
  });
  ctx.windowShown = true;
  const w = createMainWindow({ appPath: ctx.appPath, bounds, plan, origins: () => originsOf(ctx) });
  w.on("close", (event) => {
    ctx.store.set({ window: { ...w.getNormalBounds(), maximized: w.isMaximized() } });
    if (!ctx.quitting && closing(ctx) === "hide" && ctx.tray) {
      event.preventDefault();
      w.hide();
    }
  });
  // A tray host can appear later (an extension turned on): asked again when the window is used.
  w.on("focus", () => {
    void probeTray().then((status) => {
      ctx.trayStatus = status;
    });
  });
  w.on("closed", () => {
    ctx.win = null;
  });
  ctx.win = w;
  return w;
}

/** A notification; a delivery to the inbox shows its files in the file manager on a click. */
function notify(ctx: MainContext, n: Parameters<DesktopShell["notify"]>[0]): void {
  if (!Notification.isSupported()) return;
  const note = new Notification({ title: n.title, body: n.body });
  const delivery = "deliveryId" in n && typeof n.deliveryId === "string" ? n.deliveryId : null;
  if (delivery)
    note.on("click", () => {
      const path = ctx.desktop?.inbox.savedPath(delivery);
      if (path) electronShell.showItemInFolder(path);
    });
  note.show();
}

/** What the desktop app asks of Electron: the window, cookies, notifications, tray, quit. */
function createShell(ctx: MainContext): DesktopShell {
  return {
    showUrl: (url) => void openWindow(ctx).loadURL(url),
    showMessage: (_kind, text, details) => {
      const lang = ctx.desktop?.language ?? "en";
      const label = translator(lang)("app.failed.details");
      ctx.message = messagePage(lang, text, details ? { label, text: details } : undefined);
      showMessagePage(openWindow(ctx));
    },
    setCookies: async (cookies) => {
      for (const c of cookies) await session.defaultSession.cookies.set(c);
    },
    notify: (n) => notify(ctx, n),
    setTray: (items, tooltip) => ctx.tray?.set(items, tooltip),
    appearanceChanged: (s) => {
      nativeTheme.themeSource = s.theme;
      ctx.win?.webContents.reload();
    },
    applyStartAtLogin: (s) => {
      const result = applyAutostart({
        enabled: s.startAtLogin,
        hidden: s.startMinimized,
        execPath: process.execPath,
        appArgs: app.isPackaged ? [] : [ctx.appPath],
      });
      if (result.kind === "login-item") app.setLoginItemSettings(result.settings);
    },
    copyText: (text) => clipboard.writeText(text),
    showInFolder: (path) => electronShell.showItemInFolder(path),
    showQr: () => {
      ctx.desktop?.open("settings");
      openWindow(ctx).show();
    },
    quit: () => app.quit(),
    log: (line) => console.log(line),
  };
}

/** What the IPC handlers reach besides the desktop app. */
interface IpcParts {
  host: ServiceHost;
  secrets: SecretStore;
  secretsStatus: SecretStoreStatus;
  operator: Operator;
  shell: DesktopShell;
}

/** The window's IPC channels, and the services' status sent to it as it changes. */
function registerIpc(ctx: MainContext, d: DesktopApp, parts: IpcParts): void {
  const { host, secrets, secretsStatus, operator, shell } = parts;
  registerIpcHandlers(
    ipcMain,
    createIpcHandlers({
      origins: () => originsOf(ctx),
      info: () => toServiceInfo(host.info, secretsStatus, ctx.trayStatus),
      openExternal: (url) => import("electron").then((e) => e.shell.openExternal(url)),
      open: (area) => {
        d.open(area);
        openWindow(ctx).show();
      },
      secrets,
      setupToken: () => d.setupToken(),
      operator,
      setWindowCookies: shell.setCookies,
      settings: { get: () => d.settings, set: (patch) => d.changeSettings(patch) },
      entries: { list: () => d.entriesView(), choose: (names) => d.chooseInterfaces(names) },
      inbox: {
        view: () => d.inbox.view(),
        open: async (minutes, password) => void (await d.inbox.open(minutes, password)),
        close: () => d.inbox.close(),
        showInFolder: (id) => {
          const path = d.inbox.savedPath(id);
          if (path) shell.showInFolder(path);
        },
        chooseFolder: () => chooseInboxFolder(ctx, d),
      },
      onError: (channel, err) => console.error(`IPC ${channel} failed`, err),
    }),
  );
  host.on("info", (info) =>
    ctx.win?.webContents.send(
      EVENT_CHANNELS.status,
      toServiceInfo(info, secretsStatus, ctx.trayStatus),
    ),
  );
}

/** The inbox folder the operator picks, once the settings took it (null when cancelled). */
async function chooseInboxFolder(ctx: MainContext, d: DesktopApp): Promise<string | null> {
  const picked = await dialog.showOpenDialog(openWindow(ctx), {
    properties: ["openDirectory", "createDirectory"],
  });
  const folder = picked.canceled ? undefined : picked.filePaths[0];
  if (!folder) return null;
  return (await d.changeSettings({ inboxFolder: folder })).ok ? folder : null;
}

/** Says a settings repair in the window's language (logged whatever it says). */
function sayRepair(ctx: MainContext, d: DesktopApp, repair: SettingsRepair): void {
  console.warn(`Settings repaired: ${JSON.stringify(repair)}`);
  const text = repairNotice(repair, d.language);
  if (text) void dialog.showMessageBox(openWindow(ctx), { type: "warning", message: text });
}

/** A second launch, the dock, the window's close and the quit: the services stop first. */
function handleAppEvents(ctx: MainContext, d: DesktopApp): void {
  app.on("second-instance", () => {
    const w = openWindow(ctx);
    if (w.isMinimized()) w.restore();
    w.show();
    w.focus();
  });
  app.on("activate", () => openWindow(ctx).show());
  app.on("before-quit", () => {
    ctx.quitting = true;
  });
  let stopping = false;
  app.on("will-quit", (event) => {
    if (stopping) return;
    // The services stop within 2 s (ServiceHost kills them at the deadline).
    stopping = true;
    event.preventDefault();
    void d.stop().finally(() => {
      ctx.tray?.destroy();
      app.exit(0);
    });
  });
  app.on("window-all-closed", () => {
    if (closing(ctx) === "quit") app.quit();
  });
}

async function main(): Promise<void> {
  await app.whenReady();
  secureSession();
  const note = sandboxNote(process.platform, process.argv, process.env);
  if (note) console.warn(note);
  const trayStatus = await probeTray();
  const appPath = app.getAppPath();
  const userData = app.getPath("userData");
  // Repairs found before the window exists are said once it does.
  const repairs: SettingsRepair[] = [];
  let onRepair = (repair: SettingsRepair): void => void repairs.push(repair);
  const store = openSettings((repair) => onRepair(repair));
  nativeTheme.themeSource = readSettings(store).theme;

  const { choice, secrets, status: secretsStatus } = openSecrets();
  const operator = createOperator({ secrets });
  const dataDir = process.env.GATEHOUSE_DATA_DIR ?? join(userData, "data");
  // The services (a child of this process) find the app's own core through the environment.
  Object.assign(process.env, servicesEnv(bundledCore()));
  const host = new ServiceHost({
    fork: forkForApp(),
    entry: serviceEntry(),
    args: [],
    dataDir,
    log: (line) => console.log(`[services] ${line}`),
  });

  const ctx: MainContext = {
    appPath,
    store,
    trayStatus,
    hidden: false,
    win: null,
    windowShown: false,
    quitting: false,
    tray: null,
    desktop: null,
    message: messagePage("en", ""),
  };
  serveAppPages(join(appPath, DESKTOP_UI_DIR), () => ctx.message);
  ctx.hidden = startsHidden(process.argv, settingsOf(ctx).startMinimized);

  const shell = createShell(ctx);
  const d = new DesktopApp({
    host,
    settings: store,
    secrets,
    operator,
    interfaces: watchInterfaces(),
    shell,
    dataDir,
    systemLocale: app.getLocale(),
    downloadsDir: app.getPath("downloads"),
  });
  ctx.desktop = d;
  registerIpc(ctx, d, { host, secrets, secretsStatus, operator, shell });

  // Tokens reach the parcel service from main, attached to the window's own requests.
  attachOwnerTokens(
    () => d.parcelOrigins(),
    secrets,
    (id) => ctx.win !== null && !ctx.win.isDestroyed() && id === ctx.win.webContents.id,
  );
  ctx.tray = new AppTray(
    join(appPath, "resources", "icons", trayIconName(process.platform)),
    (action) => void d.trayAction(action),
    () => openWindow(ctx).show(),
  );
  openWindow(ctx);
  d.start();
  if (!choice.ok)
    void dialog.showMessageBox(openWindow(ctx), {
      type: "warning",
      message: choice.message,
      detail: choice.reason,
    });
  onRepair = (repair) => sayRepair(ctx, d, repair);
  for (const repair of repairs.splice(0)) onRepair(repair);
  handleAppEvents(ctx, d);
}

// `gatehouse --headless ...` runs the services without a window (a gateway without a
// display); on Linux without the display switches it first starts itself again with them.
// A second launch hands over to the first (which shows its window) and ends here, before it
// builds a store, a keychain or a service host of its own.
const relaunch = headlessRelaunchArgs(process.platform, process.argv, process.env);
const modelId = appUserModelId(process.platform);
if (relaunch) {
  process.exit(
    relaunchHeadless(process.execPath, relaunch, { ...process.env, [RELAUNCHED_ENV]: "1" }),
  );
} else if (headlessArgs(process.argv)) {
  // The bundled core is named for the services whatever PATH says.
  void startHeadless({ env: servicesEnv(bundledCore()), exit: (code) => app.exit(code) });
} else if (app.requestSingleInstanceLock()) {
  if (modelId) app.setAppUserModelId(modelId);
  // Once, before the app is ready: the Desktop screen's scheme (see app-protocol.ts).
  registerAppScheme();
  void main().catch((err: unknown) => {
    console.error("Gatehouse could not start", err);
    app.exit(1);
  });
} else {
  app.exit(0);
}
