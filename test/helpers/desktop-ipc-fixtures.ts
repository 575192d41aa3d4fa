import type { IpcDeps, IpcSender } from "../../main/ipc/handlers.js";
import type { DesktopCookie } from "../../main/operator/cookies.js";
import type { PasswordResult } from "../../main/operator/types.js";
import type { SecretStore } from "../../main/secrets/keychain.js";
import type { InvokeChannel } from "../../preload/contract.js";

/** Callers, calls and recording deps for the desktop IPC handler tests (desktop-ipc.test.ts). */

export const PARCEL = "http://127.0.0.1:8000";
export const PROXY = "http://127.0.0.1:8080";
/** The parcel pages as a phone on the LAN loads them (an entry address). */
export const LAN = "http://192.168.1.23:8000";
/** The app's own page: the only caller of the privileged channels. */
export const OWN: IpcSender = { url: "app://gatehouse/desktop.html", frameIsMain: true };
/** A service page in the window: the same page the LAN loads. */
export const SERVICE: IpcSender = { url: `${PARCEL}/#/admin`, frameIsMain: true };
export const SERVICE_PAGES: IpcSender[] = [
  SERVICE,
  { url: `${PROXY}/settings`, frameIsMain: true },
  { url: `${LAN}/#/mine`, frameIsMain: true },
];
export const ID = "AbCdEfGhIjKlMnOpQrStUv";
export const TOKEN = "n".repeat(22) + "m".repeat(43);

export function memoryStore(): SecretStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get: (a) => map.get(a) ?? null,
    set: (a, s) => void map.set(a, s),
    delete: (a) => map.delete(a),
    list: () => [...map].map(([account, secret]) => ({ account, secret })),
  };
}

export const COOKIE: DesktopCookie = {
  url: PROXY,
  name: "svc_session",
  value: "fresh-session",
  httpOnly: true,
  secure: false,
  sameSite: "strict",
  path: "/",
  expirationDate: 2_000_000_000,
};

/** Deps that record every call, so a test sees what reached them and what did not. */
export function fakeDeps(overrides: Partial<IpcDeps> = {}) {
  const calls: Array<[string, ...unknown[]]> = [];
  const record =
    <R>(name: string, result: R) =>
    (...args: unknown[]): R => {
      calls.push([name, ...args]);
      return result;
    };
  const secrets = memoryStore();
  let origins = [PARCEL, PROXY, LAN];
  const passwordResult: PasswordResult = { ok: true, cookies: [COOKIE], csrf: "csrf-token" };
  const deps: IpcDeps = {
    origins: () => origins,
    info: record("info", { parcel: null, proxy: null, dataDir: "/data", error: null }),
    openExternal: record("openExternal", undefined),
    open: record("open", undefined),
    secrets,
    setupToken: record("setupToken", "setup-token-value"),
    operator: {
      revealPassword: record("revealPassword", "the-password"),
      changePassword: record("changePassword", Promise.resolve(passwordResult)),
      rememberPassword: record("rememberPassword", Promise.resolve(passwordResult)),
    },
    setWindowCookies: record("setWindowCookies", undefined),
    settings: {
      get: record("settings.get", { theme: "dark" }),
      set: record("settings.set", { saved: true }),
    },
    entries: {
      list: record("entries.list", [{ name: "eth0" }]),
      choose: record("entries.choose", { chosen: ["eth0"] }),
    },
    inbox: {
      view: record("inbox.view", { available: true }),
      open: record("inbox.open", undefined),
      close: record("inbox.close", undefined),
      showInFolder: record("inbox.showInFolder", undefined),
      chooseFolder: record("inbox.chooseFolder", "/home/me/Gatehouse"),
    },
    ...overrides,
  };
  return { deps, calls, secrets, setOrigins: (o: string[]) => (origins = o) };
}

/** A valid call of every channel (a new channel without one does not compile). */
export const GOOD: Record<InvokeChannel, unknown[]> = {
  info: [],
  open: ["settings"],
  openExternal: ["https://example.com/help?x=1"],
  tokenSave: [ID, TOKEN],
  tokenRemove: [ID],
  tokenList: [],
  setupToken: [],
  operatorRevealPassword: ["proxy"],
  operatorChangePassword: ["proxy", "old password 1", "new password 12"],
  operatorRememberPassword: ["parcel", "known password 1"],
  operatorKeepsPassword: ["proxy", "the-password"],
  settingsGet: [],
  settingsSet: [{ theme: "dark", parcelPort: 8001 }],
  entriesList: [],
  entriesChoose: [["eth0", "Wi-Fi 2"]],
  inboxView: [],
  inboxOpen: [60, null],
  inboxClose: [],
  inboxShowInFolder: [ID],
  inboxChooseFolder: [],
};

/** Wrong calls of every channel; each list also gets "one argument too many" below. */
export const BAD: Record<InvokeChannel, unknown[][]> = {
  info: [],
  open: [[], ["desktop"], ["#/admin"], [1]],
  openExternal: [
    ["file:///etc/passwd"],
    ["javascript:alert(1)"],
    ["ms-settings:privacy"],
    ["not a url"],
    [`https://example.com/${"a".repeat(2048)}`],
    [42],
    [],
  ],
  tokenSave: [[ID], [ID, "short"], ["../../etc", TOKEN], [ID, `${TOKEN} `], [ID, 7], ["x", TOKEN]],
  tokenRemove: [[], ["a/b/c/d/e/f/g/h/i/j/k"], [null]],
  tokenList: [],
  setupToken: [],
  operatorRevealPassword: [[], ["root"], ["PARCEL"]],
  operatorChangePassword: [
    ["proxy", "old password 1"],
    ["mail", "a", "b"],
    ["proxy", "", "new password 12"],
    ["proxy", "old password 1", "x".repeat(1025)],
  ],
  operatorRememberPassword: [["proxy"], ["proxy", 12345678901234]],
  operatorKeepsPassword: [["proxy"], ["root", "x"], ["proxy", ""]],
  settingsGet: [],
  settingsSet: [
    [],
    ["theme=dark"],
    [["theme"]],
    [{ "bad key": 1 }],
    [{ __proto__x: 1 }],
    [{ big: "x".repeat(17 * 1024) }],
    [Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i]))],
    [{ fn: () => 1 }],
  ],
  entriesList: [],
  entriesChoose: [
    [],
    ["eth0"],
    [["eth0", "eth0"]],
    [[""]],
    [["eth\n0"]],
    [Array.from({ length: 65 }, (_, i) => `if${i}`)],
  ],
  inboxView: [],
  inboxOpen: [[], [0, null], [10081, null], [1.5, null], [60, ""], [60], ["60", null]],
  inboxClose: [],
  inboxShowInFolder: [[], ["../../etc/passwd"], [7]],
  inboxChooseFolder: [],
};

export const FOREIGN: IpcSender[] = [
  { url: "app://gatehouse.evil/desktop.html" },
  { url: "app://evil/desktop.html" },
  { url: "app://gatehouse@evil/desktop.html" },
  { url: "app://gatehouse:1/desktop.html" },
  { url: "app:gatehouse/desktop.html" },
  { url: "APP://GATEHOUSE/desktop.html" },
  { url: "app://gatehouse/desktop.html", frameIsMain: false },
  { url: "http://evil.example/" },
  { url: "http://127.0.0.1:8001/" },
  { url: "https://127.0.0.1:8000/" },
  { url: "http://127.0.0.10:8000/" },
  { url: "http://localhost:8000/" },
  { url: "http://127.0.0.1:8000@evil.example/" },
  { url: "http://127.0.0.1:8000.evil.example/" },
  { url: "data:text/html,<script>1</script>" },
  { url: "file:///home/operator/page.html" },
  { url: "about:blank" },
  { url: "" },
  { url: `${PARCEL}/`, frameIsMain: false },
];
