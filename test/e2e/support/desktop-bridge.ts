import type { BrowserContext, Cookie, Page } from "@playwright/test";
import { build } from "esbuild";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  INVOKE_CHANNELS,
  type InvokeChannel,
  type ServiceInfo,
} from "../../../preload/contract.js";
import { detectInterfaces, type InterfaceTable } from "../../../main/entries/detect.js";
import { entryState } from "../../../main/entries/entries.js";
import { resolveLanguage } from "../../../main/i18n.js";
import { APP_ORIGIN, appAnswer, appHeaders, DESKTOP_UI_DIR } from "../../../main/app-protocol.js";
import { areaUrl } from "../../../main/app/areas.js";
import { createDesktopInbox } from "../../../main/app/desktop-inbox.js";
import type { InboxNotification } from "../../../main/inbox/words.js";
import type { InboxKeeper } from "../../../main/inbox/keeper.js";
import { createIpcHandlers, type IpcHandlers } from "../../../main/ipc/handlers.js";
import { ownerAuthorization } from "../../../main/secrets/owner-requests.js";
import type { DesktopCookie } from "../../../main/operator/cookies.js";
import { createOperator, type Operator } from "../../../main/operator/operator.js";
import type { OperatorSignIn } from "../../../main/operator/types.js";
import { chooseSecretStore, probeKeyring, unavailableStore } from "../../../main/secrets/choose.js";
import { createKeychain, type SecretStore } from "../../../main/secrets/keychain.js";
import type { DesktopSettings } from "../../../main/settings/schema.js";
import {
  applySettingsPatch,
  openDesktopSettings,
  readSettings,
  type DesktopStoreOptions,
  type SettingsStore,
} from "../../../main/settings/store.js";
import { parseConfig } from "../../../server/config.js";
import { startGatehouse, type RunningGatehouse } from "../../../server/host.js";
import { createLogger } from "../../../server/log.js";
import { loadElectronStore } from "../../helpers/electron-stand-in/index.js";
import { freePort } from "../../helpers/free-ports.js";

/**
 * The desktop app's main side without Electron, for Playwright: the real services (both on
 * 127.0.0.1 port 0, a temporary data dir, the built UI), the real operator signing in over
 * HTTP, the real OS keychain (or the real refusal when none is usable), settings in a real
 * electron-store file, LAN entries from a fixed interface table, and the real IPC handlers. Pages get
 * `window.gatehouse` from the real preload, bundled with a stand-in `electron` module whose
 * `ipcRenderer.invoke` is a Playwright binding: only the IPC transport is replaced.
 *
 * Two more stand-ins for what Electron does: Chromium here cannot load `app://`, so the built
 * Desktop screen is served (through the real `appAnswer`, with the app pages' CSP) from an
 * origin of its own, whose callers the binding reports as `app://gatehouse/...`; and the
 * window's owner requests get their kept token from a route using the real
 * `ownerAuthorization`, as main's `onBeforeSendHeaders` does.
 */

/** What `os.networkInterfaces()` would say on a machine with Ethernet, Wi-Fi and Docker. */
export const INTERFACES: InterfaceTable = {
  lo: [
    {
      address: "127.0.0.1",
      netmask: "255.0.0.0",
      family: "IPv4",
      mac: "00:00:00:00:00:00",
      internal: true,
      cidr: "127.0.0.1/8",
    },
  ],
  eth0: [
    {
      address: "192.168.1.23",
      netmask: "255.255.255.0",
      family: "IPv4",
      mac: "52:54:00:12:34:56",
      internal: false,
      cidr: "192.168.1.23/24",
    },
  ],
  wlan0: [
    {
      address: "10.0.0.5",
      netmask: "255.255.255.0",
      family: "IPv4",
      mac: "52:54:00:12:34:57",
      internal: false,
      cidr: "10.0.0.5/24",
    },
  ],
  docker0: [
    {
      address: "172.17.0.1",
      netmask: "255.255.0.0",
      family: "IPv4",
      mac: "02:42:ac:11:00:01",
      internal: false,
      cidr: "172.17.0.1/16",
    },
  ],
};

/** Whether a Secret Service answers here: null when it does, else why not. */
export function keychainProblem(service: string): string | null {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) return "no D-Bus session bus";
  return probeKeyring(createKeychain(service));
}

let preloadBundle: Promise<string> | null = null;

/** The real preload, bundled for a page with the IPC stand-in as `electron`. */
function preloadScript(): Promise<string> {
  preloadBundle ??= build({
    entryPoints: [resolve("preload/index.cts")],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: ["chrome120"],
    alias: { electron: resolve("test/e2e/support/desktop-electron-shim.ts") },
    logLevel: "warning",
  }).then((out) => out.outputFiles[0].text);
  return preloadBundle;
}

const CHANNEL_KEYS = new Map<string, InvokeChannel>(
  Object.entries(INVOKE_CHANNELS).map(([key, channel]) => [channel, key as InvokeChannel]),
);

/** An Electron cookie as Playwright's context takes it (host-only, like Electron sets it). */
export function playwrightCookie(c: DesktopCookie): Cookie {
  const sameSite =
    c.sameSite === "strict" ? "Strict" : c.sameSite === "no_restriction" ? "None" : "Lax";
  return {
    name: c.name,
    value: c.value,
    domain: new URL(c.url).hostname,
    path: c.path,
    expires: c.expirationDate ?? -1,
    httpOnly: c.httpOnly,
    secure: c.secure,
    sameSite,
  };
}

export interface DesktopRigOptions {
  /** "keychain": the OS keychain under `keychainService`; "refused": none usable. */
  secrets: "keychain" | "refused";
  keychainService?: string;
  /** Set the proxy console up in a browser first, with this password (the desktop never knew it). */
  proxySetUpElsewhere?: string;
}

export interface DesktopRig {
  services: RunningGatehouse;
  parcelUrl: string;
  proxyUrl: string;
  /** The Desktop screen (app://gatehouse/desktop.html in the app). */
  appUrl: string;
  /** Areas the pages asked the window to show (`gatehouse.app.open`). */
  opened: string[];
  secrets: SecretStore;
  operator: Operator;
  signIn: OperatorSignIn;
  settings: SettingsStore;
  handlers: IpcHandlers;
  /** Calls that reached the handlers, by channel (to show what the page asked for). */
  calls: string[];
  /** The desktop's inbox keeper (saving into `<rig>/Downloads/Gatehouse`). */
  inbox: InboxKeeper;
  /** Paths "Show in folder" was asked to show. */
  shown: string[];
  /** Notifications of saved deliveries. */
  notes: InboxNotification[];
  /** Gives a context the window's session cookies and `window.gatehouse` on every page. */
  install(context: BrowserContext): Promise<void>;
  close(): Promise<void>;
}

/** The built Desktop screen, answered as main's `app://` handler answers it. */
function serveAppPages(): Promise<Server> {
  const root = resolve(DESKTOP_UI_DIR);
  const server = createServer((req, res) => {
    const answer = appAnswer(root, `${APP_ORIGIN}${req.url ?? "/"}`);
    if (answer.kind !== "file") {
      res.writeHead(answer.kind === "refused" ? answer.status : 404).end();
      return;
    }
    try {
      const body = readFileSync(answer.path);
      res.writeHead(200, appHeaders(answer.type)).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done(server)));
}

export async function startDesktopRig(options: DesktopRigOptions): Promise<DesktopRig> {
  const dir = mkdtempSync(join(tmpdir(), "gh-desktop-e2e-"));
  const dataDir = join(dir, "data");
  const config = parseConfig([
    "--data-dir",
    dataDir,
    "--host",
    "127.0.0.1",
    "--parcel-port",
    "0",
    "--proxy-port",
    "0",
    "--core-bin",
    join(dir, "no-core-here"),
    // Never the production controller port, which a real core may hold.
    "--core-controller-port",
    String(await freePort()),
  ]);
  if (config === "help") throw new Error("unexpected help");
  const services = await startGatehouse(config, createLogger({ level: "silent" }));
  const parcel = services.parcel;
  const proxy = services.proxy;
  if (!parcel || !proxy) throw new Error("both services must run");

  if (options.proxySetUpElsewhere) {
    const setup = await fetch(`${proxy.url}/api/v1/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: proxy.url },
      body: JSON.stringify({ token: proxy.setupToken, password: options.proxySetUpElsewhere }),
    });
    if (setup.status !== 200) throw new Error(`proxy setup answered ${setup.status}`);
  }

  let secrets: SecretStore;
  let secretsStatus: NonNullable<ServiceInfo["secrets"]>;
  if (options.secrets === "keychain") {
    secrets = createKeychain(options.keychainService);
    secretsStatus = { kind: "keychain" };
  } else {
    const fail = (): never => {
      throw new Error("keychain: Couldn't access platform storage: no Secret Service");
    };
    const choice = chooseSecretStore({
      keyring: { get: fail, set: fail, delete: fail, list: fail },
      safeStorage: null,
      fallbackFile: join(dir, "secrets.json"),
      platform: "linux",
    });
    if (choice.ok) throw new Error("expected the keychain to be refused");
    secrets = unavailableStore(choice);
    secretsStatus = { kind: "refused", code: choice.code, message: choice.message };
  }

  const operator = createOperator({ secrets });
  const signIn = await operator.signIn({ parcel, proxy });
  // The real electron-store, with a stand-in `electron` whose user-data folder is this rig's.
  const Store = await loadElectronStore(join(dir, "settings"));
  const { store } = openDesktopSettings(
    (o: DesktopStoreOptions) =>
      new Store<DesktopSettings>(
        o as unknown as ConstructorParameters<typeof Store<DesktopSettings>>[0],
      ),
    join(dir, "settings"),
  );
  const settings = (): DesktopSettings => readSettings(store);
  const language = () => resolveLanguage(settings().language, "en-US");
  const detected = detectInterfaces(() => INTERFACES);
  const parcelPort = Number(new URL(parcel.url).port);
  const entriesView = () => {
    const s = settings();
    const state = entryState(
      {
        chosen: s.entries,
        ports: { parcel: parcelPort, https: s.parcelHttpsPort },
        https: s.httpsEnabled,
        host: "0.0.0.0",
      },
      detected,
    );
    return {
      interfaces: detected,
      chosen: s.entries,
      lan: state.lan,
      lanName: null,
      missing: state.missing,
    };
  };

  const appServer = await serveAppPages();
  const appOrigin = `http://127.0.0.1:${(appServer.address() as { port: number }).port}`;
  /** A caller on the stand-in origin is the app page it stands for. */
  const asApp = (url: string): string =>
    url.startsWith(`${appOrigin}/`) ? `${APP_ORIGIN}${url.slice(appOrigin.length)}` : url;

  let windowCookies: (cookies: DesktopCookie[]) => Promise<void> = async () => {};
  const calls: string[] = [];
  const opened: string[] = [];
  let windowPage: Page | null = null;
  const hostInfo = {
    state: "ready" as const,
    dataDir,
    parcel: { url: parcel.url, httpsUrl: null, entries: parcel.entries, adminUser: "" },
    proxy: { url: proxy.url },
    core: null,
    error: null,
    errorCode: null,
  };
  // The desktop's inbox keeper, signed in as the operator, saving into the rig's folder.
  const shown: string[] = [];
  const notes: InboxNotification[] = [];
  const inbox = createDesktopInbox({
    info: () => hostInfo,
    session: (service) => signIn[service],
    signInAgain: async () => false,
    log: () => {},
    dataDir,
    downloadsDir: join(dir, "Downloads"),
    settings,
    language,
    notify: (n) => void notes.push(n),
    changed: () => {},
  });
  const handlers = createIpcHandlers({
    origins: () => [parcel.url, proxy.url],
    info: () => ({
      parcel: { url: parcel.url, entries: parcel.entries },
      proxy: { url: proxy.url },
      dataDir,
      error: null,
      secrets: secretsStatus,
    }),
    openExternal: () => {},
    open: (area) => {
      opened.push(area);
      const url = areaUrl(hostInfo, area);
      // Main loads it in the window; here the page that asked goes there.
      if (url && windowPage)
        void windowPage.goto(
          url.startsWith(APP_ORIGIN) ? `${appOrigin}${url.slice(APP_ORIGIN.length)}` : url,
        );
    },
    secrets,
    setupToken: () => {
      try {
        return readFileSync(join(dataDir, "proxy", "setup-token"), "utf8").trim() || null;
      } catch {
        return null;
      }
    },
    operator,
    setWindowCookies: (cookies) => windowCookies(cookies),
    settings: {
      get: settings,
      set: (patch) => applySettingsPatch(store, patch, language()),
    },
    entries: {
      list: entriesView,
      choose: (names) => applySettingsPatch(store, { entries: names }, language()),
    },
    inbox: {
      view: () => inbox.view(),
      open: async (minutes, password) => void (await inbox.open(minutes, password)),
      close: () => inbox.close(),
      showInFolder: (id) => void shown.push(inbox.savedPath(id) ?? ""),
      chooseFolder: () => null,
    },
  });

  return {
    services,
    parcelUrl: parcel.url,
    proxyUrl: proxy.url,
    appUrl: `${appOrigin}/desktop.html`,
    opened,
    secrets,
    operator,
    signIn,
    settings: store,
    handlers,
    calls,
    inbox,
    shown,
    notes,
    async install(context) {
      // The window's session: what the wiring puts there after signing in, and later changes.
      await context.addCookies(signIn.cookies.map(playwrightCookie));
      windowCookies = (cookies) => context.addCookies(cookies.map(playwrightCookie));
      await context.exposeBinding(
        "__gatehouseInvoke",
        async (source, channel: string, args: unknown[]) => {
          const key = CHANNEL_KEYS.get(channel);
          if (!key) return { ok: false, code: "ipc.bad_arguments", message: "no such channel" };
          calls.push(key);
          windowPage = source.page;
          const sender = {
            url: asApp(source.frame.url()),
            frameIsMain: source.frame === source.page.mainFrame(),
          };
          return handlers[key](sender, ...(Array.isArray(args) ? args : []));
        },
      );
      await context.addInitScript({ content: await preloadScript() });
      // What main's onBeforeSendHeaders does for the window: the kept token, attached by main.
      await context.route(`${parcel.url}/api/v1/**`, async (route) => {
        const request = route.request();
        const auth = ownerAuthorization(request.url(), request.headers(), [parcel.url], secrets);
        await route.continue(
          auth ? { headers: { ...request.headers(), authorization: auth } } : undefined,
        );
      });
    },
    async close() {
      await new Promise<void>((resolve) => appServer.close(() => resolve()));
      await services.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
