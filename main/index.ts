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
import { createOperator } from "./operator/operator.js";
import { applyAutostart, startsHidden } from "./settings/autostart.js";
import type { DesktopSettings } from "./settings/schema.js";
import { servicesEnv } from "./settings/services-args.js";
import { repairNotice, type SettingsRepair } from "./settings/repair.js";
import { readSettings } from "./settings/store.js";

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

async function main(): Promise<void> {
  await app.whenReady();
  secureSession();
  const note = sandboxNote(process.platform, process.argv, process.env);
  if (note) console.warn(note);
  let trayStatus = await probeTray();
  const appPath = app.getAppPath();
  const userData = app.getPath("userData");
  // Repairs found before the window exists are said once it does.
  const repairs: SettingsRepair[] = [];
  let sayRepair = (repair: SettingsRepair): void => void repairs.push(repair);
  const store = openSettings((repair) => sayRepair(repair));
  const settings = (): DesktopSettings => readSettings(store);
  nativeTheme.themeSource = settings().theme;

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

  let quitting = false;
  // The start-up or failure sentence app://gatehouse/message shows.
  let message = messagePage("en", "");
  serveAppPages(join(appPath, DESKTOP_UI_DIR), () => message);
  const hidden = startsHidden(process.argv, settings().startMinimized);
  let win: BrowserWindow | null = null;
  let windowShown = false;
  let tray: AppTray | null = null;
  let desktop: DesktopApp | null = null;
  const origins = (): string[] => desktop?.origins() ?? [];

  const closing = (): "hide" | "quit" =>
    closeAction({ closeToTray: settings().closeToTray, tray: trayStatus });
  const openWindow = (): BrowserWindow => {
    if (win) return win;
    const bounds = settings().window;
    // Only the first window may start hidden; one opened later (from the tray) shows.
    const plan = startWindowPlan({
      hidden: hidden && !windowShown,
      maximized: bounds.maximized,
      tray: trayStatus,
    });
    windowShown = true;
    const w = createMainWindow({ appPath, bounds, plan, origins });
    w.on("close", (event) => {
      store.set({ window: { ...w.getNormalBounds(), maximized: w.isMaximized() } });
      if (!quitting && closing() === "hide" && tray) {
        event.preventDefault();
        w.hide();
      }
    });
    // A tray host can appear later (an extension turned on): asked again when the window is used.
    w.on("focus", () => {
      void probeTray().then((status) => {
        trayStatus = status;
      });
    });
    w.on("closed", () => {
      win = null;
    });
    win = w;
    return w;
  };

  const shell: DesktopShell = {
    showUrl: (url) => void openWindow().loadURL(url),
    showMessage: (_kind, text, details) => {
      const lang = desktop?.language ?? "en";
      const label = translator(lang)("app.failed.details");
      message = messagePage(lang, text, details ? { label, text: details } : undefined);
      showMessagePage(openWindow());
    },
    setCookies: async (cookies) => {
      for (const c of cookies) await session.defaultSession.cookies.set(c);
    },
    notify: (n) => {
      if (!Notification.isSupported()) return;
      const note = new Notification({ title: n.title, body: n.body });
      // A delivery to the inbox: a click shows its files in the file manager.
      const delivery = "deliveryId" in n && typeof n.deliveryId === "string" ? n.deliveryId : null;
      if (delivery)
        note.on("click", () => {
          const path = desktop?.inbox.savedPath(delivery);
          if (path) electronShell.showItemInFolder(path);
        });
      note.show();
    },
    setTray: (items, tooltip) => tray?.set(items, tooltip),
    appearanceChanged: (s) => {
      nativeTheme.themeSource = s.theme;
      win?.webContents.reload();
    },
    applyStartAtLogin: (s) => {
      const result = applyAutostart({
        enabled: s.startAtLogin,
        hidden: s.startMinimized,
        execPath: process.execPath,
        appArgs: app.isPackaged ? [] : [appPath],
      });
      if (result.kind === "login-item") app.setLoginItemSettings(result.settings);
    },
    copyText: (text) => clipboard.writeText(text),
    showInFolder: (path) => electronShell.showItemInFolder(path),
    showQr: () => {
      desktop?.open("settings");
      openWindow().show();
    },
    quit: () => app.quit(),
    log: (line) => console.log(line),
  };

  desktop = new DesktopApp({
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
  const d = desktop;

  registerIpcHandlers(
    ipcMain,
    createIpcHandlers({
      origins,
      info: () => toServiceInfo(host.info, secretsStatus, trayStatus),
      openExternal: (url) => import("electron").then((e) => e.shell.openExternal(url)),
      open: (area) => {
        d.open(area);
        openWindow().show();
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
        chooseFolder: async () => {
          const picked = await dialog.showOpenDialog(openWindow(), {
            properties: ["openDirectory", "createDirectory"],
          });
          const folder = picked.canceled ? undefined : picked.filePaths[0];
          if (!folder) return null;
          return (await d.changeSettings({ inboxFolder: folder })).ok ? folder : null;
        },
      },
      onError: (channel, err) => console.error(`IPC ${channel} failed`, err),
    }),
  );
  host.on("info", (info) =>
    win?.webContents.send(EVENT_CHANNELS.status, toServiceInfo(info, secretsStatus, trayStatus)),
  );

  // Tokens reach the parcel service from main, attached to the window's own requests.
  attachOwnerTokens(
    () => d.parcelOrigins(),
    secrets,
    (id) => win !== null && !win.isDestroyed() && id === win.webContents.id,
  );
  tray = new AppTray(
    join(appPath, "resources", "icons", trayIconName(process.platform)),
    (action) => void d.trayAction(action),
    () => openWindow().show(),
  );
  openWindow();
  d.start();
  if (!choice.ok)
    void dialog.showMessageBox(openWindow(), {
      type: "warning",
      message: choice.message,
      detail: choice.reason,
    });
  sayRepair = (repair) => {
    console.warn(`Settings repaired: ${JSON.stringify(repair)}`);
    const text = repairNotice(repair, d.language);
    if (text) void dialog.showMessageBox(openWindow(), { type: "warning", message: text });
  };
  for (const repair of repairs.splice(0)) sayRepair(repair);

  app.on("second-instance", () => {
    const w = openWindow();
    if (w.isMinimized()) w.restore();
    w.show();
    w.focus();
  });
  app.on("activate", () => openWindow().show());
  app.on("before-quit", () => {
    quitting = true;
  });
  let stopping = false;
  app.on("will-quit", (event) => {
    if (stopping) return;
    // The services stop within 2 s (ServiceHost kills them at the deadline).
    stopping = true;
    event.preventDefault();
    void d.stop().finally(() => {
      tray?.destroy();
      app.exit(0);
    });
  });
  app.on("window-all-closed", () => {
    if (closing() === "quit") app.quit();
  });
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
