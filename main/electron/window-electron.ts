import { BrowserWindow, session, shell } from "electron";
import { join } from "node:path";
import { APP_ORIGIN, MESSAGE_PATH } from "../app-protocol.js";
import { cspFor, isAllowedNavigation } from "../security.js";
import type { StartWindowPlan } from "../platform.js";

/**
 * The app's one window and its session rules: sandboxed, context-isolated, no Node in pages,
 * only the services' own origins and the app's own pages may be shown (main/security.ts), new
 * windows open in the system browser, and only clipboard writes are permitted. No decisions
 * beyond these live here.
 */

export interface WindowOptions {
  appPath: string;
  bounds: { width: number; height: number; x?: number; y?: number; maximized: boolean };
  /** How it first appears (main/platform.ts `startWindowPlan`). */
  plan: StartWindowPlan;
  origins(): string[];
}

/** Session-wide rules: a CSP on every answer, and no permission but clipboard writes. */
export function secureSession(): void {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: {
        ...details.responseHeaders,
        "Content-Security-Policy": [cspFor(details.url)],
      },
    });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, permission, done) =>
    done(permission === "clipboard-sanitized-write"),
  );
  session.defaultSession.setPermissionCheckHandler(
    (_wc, permission) => permission === "clipboard-sanitized-write",
  );
}

export function createMainWindow(options: WindowOptions): BrowserWindow {
  const { bounds } = options;
  const win = new BrowserWindow({
    width: bounds.width,
    height: bounds.height,
    x: bounds.x,
    y: bounds.y,
    minWidth: 480,
    minHeight: 400,
    show: options.plan.show && !options.plan.minimize,
    title: "Gatehouse",
    icon: join(options.appPath, "resources", "icons", "icon.png"),
    webPreferences: {
      preload: join(options.appPath, "dist", "main", "preload", "index.cjs"),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  const { plan } = options;
  // maximize() shows a hidden window, so a window starting in the tray waits for its first show.
  if (plan.maximize === "now") win.maximize();
  if (plan.maximize === "on-first-show") win.once("show", () => win.maximize());
  if (plan.minimize) {
    win.showInactive();
    win.minimize();
  }
  // Navigations a page starts (links, scripts, redirects, in any frame); the main process's own
  // loadURL calls are not asked.
  const guard = (event: { preventDefault(): void }, url: string) => {
    if (!isAllowedNavigation(url, options.origins())) event.preventDefault();
  };
  win.webContents.on("will-navigate", (event) => guard(event, event.url));
  win.webContents.on("will-frame-navigate", (event) => guard(event, event.url));
  win.webContents.on("will-redirect", (event) => guard(event, event.url));
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url);
    return { action: "deny" };
  });
  win.webContents.on("will-attach-webview", (event) => event.preventDefault());
  return win;
}

let shown = 0;

/**
 * Shows the message page (`app://gatehouse/message`, whose HTML the protocol handler takes
 * from the caller) in place of the services' pages; each call is a new URL, so it reloads.
 */
export function showMessagePage(win: BrowserWindow): void {
  void win.loadURL(`${APP_ORIGIN}${MESSAGE_PATH}?n=${++shown}`);
}
