import { app, BrowserWindow, ipcMain, Menu, nativeImage, session, shell, Tray } from "electron";
import Store from "electron-store";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CHANNELS } from "../preload/contract.js";
import { DESKTOP_STORE_OPTIONS, type DesktopSettings } from "./settings/schema.js";
import { createKeychain, tokenAccount } from "./secrets/keychain.js";
import { ServiceHost } from "./host/service-host.js";
import { forkForApp, serviceEntry } from "./host/fork-electron.js";
import { isAllowedNavigation, CSP } from "./security.js";

if (!app.requestSingleInstanceLock()) app.quit();

const settings = new Store<DesktopSettings>(
  DESKTOP_STORE_OPTIONS as unknown as ConstructorParameters<typeof Store<DesktopSettings>>[0],
);
const keychain = createKeychain();
const dataDir = process.env.GATEHOUSE_DATA_DIR ?? join(app.getPath("userData"), "data");
const services = new ServiceHost({
  fork: forkForApp(),
  entry: serviceEntry(),
  args: [
    "--data-dir",
    dataDir,
    "--host",
    settings.get("host"),
    "--parcel-port",
    process.env.GATEHOUSE_PARCEL_PORT ?? String(settings.get("parcelPort")),
    "--proxy-port",
    process.env.GATEHOUSE_PROXY_PORT ?? String(settings.get("proxyPort")),
  ],
  dataDir,
});

let win: BrowserWindow | null = null;
let tray: Tray | null = null;
let quitting = false;

function origins(): string[] {
  const list: string[] = [];
  if (services.info.parcel)
    list.push(...services.info.parcel.entries.map((e) => new URL(e).origin));
  if (services.info.proxy) list.push(new URL(services.info.proxy.url).origin);
  return list;
}

function loadingPage(message: string): string {
  const html = `<!doctype html><meta charset="utf-8"><title>Gatehouse</title><body style="font:16px system-ui;display:grid;place-items:center;height:100vh;margin:0">${message}</body>`;
  return `data:text/html;charset=utf-8,${encodeURIComponent(html)}`;
}

function show(area: "parcel" | "admin" | "proxy"): void {
  if (!win) return;
  const info = services.info;
  if (info.error)
    void win.loadURL(loadingPage(`Gatehouse could not start its services: ${info.error}`));
  else if (area === "proxy" && info.proxy) void win.loadURL(info.proxy.url);
  else if (info.parcel) void win.loadURL(`${info.parcel.url}/${area === "admin" ? "#/admin" : ""}`);
  else void win.loadURL(loadingPage("Starting Gatehouse…"));
}

function createWindow(): void {
  const bounds = settings.get("window");
  win = new BrowserWindow({
    width: bounds.width,
    height: bounds.height,
    x: bounds.x,
    y: bounds.y,
    minWidth: 480,
    minHeight: 400,
    show: !settings.get("startMinimized"),
    title: "Gatehouse",
    icon: join(app.getAppPath(), "resources", "icons", "icon.png"),
    webPreferences: {
      preload: join(app.getAppPath(), "dist", "main", "preload", "index.cjs"),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  if (bounds.maximized) win.maximize();
  win.webContents.on("will-navigate", (event, url) => {
    if (!isAllowedNavigation(url, origins())) event.preventDefault();
  });
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    return { action: "deny" };
  });
  win.on("close", (event) => {
    if (!win) return;
    settings.set("window", { ...win.getNormalBounds(), maximized: win.isMaximized() });
    if (!quitting && settings.get("closeToTray") && tray) {
      event.preventDefault();
      win.hide();
    }
  });
  win.on("closed", () => {
    win = null;
  });
  show("parcel");
}

function buildMenus(): void {
  const areas = [
    { label: "Send and receive", click: () => show("parcel") },
    { label: "Parcel administration", click: () => show("admin") },
    { label: "Proxy console", click: () => show("proxy") },
  ];
  const lan = (services.info.parcel?.entries ?? []).map((e) => ({
    label: `Pickup page: ${e}`,
    click: () => void shell.openExternal(e),
  }));
  Menu.setApplicationMenu(
    Menu.buildFromTemplate([
      { label: "Gatehouse", submenu: [...areas, { type: "separator" }, { role: "quit" }] },
      {
        label: "Edit",
        submenu: [
          { role: "undo" },
          { role: "redo" },
          { type: "separator" },
          { role: "cut" },
          { role: "copy" },
          { role: "paste" },
          { role: "selectAll" },
        ],
      },
      {
        label: "View",
        submenu: [
          { role: "reload" },
          { role: "togglefullscreen" },
          { role: "zoomIn" },
          { role: "zoomOut" },
          { role: "resetZoom" },
        ],
      },
      {
        label: "LAN addresses",
        submenu: lan.length ? lan : [{ label: "Starting…", enabled: false }],
      },
    ]),
  );
  if (!tray) {
    const image = nativeImage.createFromPath(
      join(app.getAppPath(), "resources", "icons", "tray.png"),
    );
    tray = new Tray(image);
    tray.setToolTip("Gatehouse");
    tray.on("click", () => win?.show());
  }
  tray.setContextMenu(
    Menu.buildFromTemplate([
      { label: "Open Gatehouse", click: () => win?.show() ?? createWindow() },
      ...areas,
      { type: "separator" },
      ...lan,
      { type: "separator" },
      {
        label: "Quit",
        click: () => {
          quitting = true;
          app.quit();
        },
      },
    ]),
  );
}

function registerIpc(): void {
  const fromOwnPage = (event: Electron.IpcMainInvokeEvent): boolean => {
    const url = event.senderFrame?.url;
    return Boolean(url && isAllowedNavigation(url, origins()));
  };
  const guard =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (event: Electron.IpcMainInvokeEvent, ...args: A): R => {
      if (!fromOwnPage(event)) throw new Error("refused: not a Gatehouse page");
      return fn(...args);
    };
  const id = (v: unknown): string => {
    if (typeof v !== "string" || !/^[\w-]{16,64}$/.test(v)) throw new Error("invalid parcel id");
    return v;
  };
  ipcMain.handle(
    CHANNELS.info,
    guard(() => services.info),
  );
  ipcMain.handle(
    CHANNELS.openExternal,
    guard(async (url: unknown) => {
      if (typeof url === "string" && /^https?:\/\//.test(url)) await shell.openExternal(url);
    }),
  );
  ipcMain.handle(
    CHANNELS.tokenSave,
    guard((parcelId: unknown, token: unknown) => {
      if (typeof token !== "string" || token.length < 20 || token.length > 200)
        throw new Error("invalid token");
      keychain.set(tokenAccount(id(parcelId)), token);
    }),
  );
  ipcMain.handle(
    CHANNELS.tokenGet,
    guard((parcelId: unknown) => keychain.get(tokenAccount(id(parcelId)))),
  );
  ipcMain.handle(
    CHANNELS.tokenRemove,
    guard((parcelId: unknown) => {
      keychain.delete(tokenAccount(id(parcelId)));
    }),
  );
  ipcMain.handle(
    CHANNELS.tokenList,
    guard(() =>
      keychain
        .list()
        .map((c) => c.account)
        .filter((a) => a.startsWith("parcel:"))
        .map((a) => a.slice(7)),
    ),
  );
  ipcMain.handle(
    CHANNELS.setupToken,
    guard(() => {
      try {
        return readFileSync(join(services.info.dataDir, "proxy", "setup-token"), "utf8").trim();
      } catch {
        return null;
      }
    }),
  );
}

app.on("second-instance", () => {
  if (win) {
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  }
});

app.on("before-quit", () => {
  quitting = true;
});

app.on("will-quit", (event) => {
  if (services.info.parcel || services.info.proxy) {
    event.preventDefault();
    void services.stop().finally(() => {
      app.quit();
    });
  }
});

void app.whenReady().then(() => {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, "Content-Security-Policy": [CSP] } });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, permission, done) =>
    done(permission === "clipboard-sanitized-write"),
  );
  registerIpc();
  services.on("info", (info) => {
    buildMenus();
    win?.webContents.send(CHANNELS.status, info);
    const current = win?.webContents.getURL() ?? "";
    if (win && (current.startsWith("data:") || current === "")) show("parcel");
  });
  services.start();
  createWindow();
  buildMenus();
  app.on("activate", () => {
    if (!win) createWindow();
    else win.show();
  });
});
