import { describe, expect, it } from "vitest";
import { createIpcHandlers, type IpcDeps, type IpcSender } from "../../main/ipc/handlers.js";
import type { DesktopCookie } from "../../main/operator/cookies.js";
import type { PasswordResult } from "../../main/operator/types.js";
import { chooseSecretStore, unavailableStore } from "../../main/secrets/choose.js";
import type { SecretStore } from "../../main/secrets/keychain.js";
import { INVOKE_CHANNELS, type InvokeChannel } from "../../preload/contract.js";

const PARCEL = "http://127.0.0.1:8000";
const PROXY = "http://127.0.0.1:8080";
const OWN: IpcSender = { url: `${PARCEL}/#/admin`, frameIsMain: true };
const ID = "AbCdEfGhIjKlMnOpQrStUv";
const TOKEN = "n".repeat(22) + "m".repeat(43);

function memoryStore(): SecretStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    get: (a) => map.get(a) ?? null,
    set: (a, s) => void map.set(a, s),
    delete: (a) => map.delete(a),
    list: () => [...map].map(([account, secret]) => ({ account, secret })),
  };
}

const COOKIE: DesktopCookie = {
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
function fakeDeps(overrides: Partial<IpcDeps> = {}) {
  const calls: Array<[string, ...unknown[]]> = [];
  const record =
    <R>(name: string, result: R) =>
    (...args: unknown[]): R => {
      calls.push([name, ...args]);
      return result;
    };
  const secrets = memoryStore();
  let origins = [PARCEL, PROXY];
  const passwordResult: PasswordResult = { ok: true, cookies: [COOKIE], csrf: "csrf-token" };
  const deps: IpcDeps = {
    origins: () => origins,
    info: record("info", { parcel: null, proxy: null, dataDir: "/data", error: null }),
    openExternal: record("openExternal", undefined),
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
    ...overrides,
  };
  return { deps, calls, secrets, setOrigins: (o: string[]) => (origins = o) };
}

/** A valid call of every channel (a new channel without one does not compile). */
const GOOD: Record<InvokeChannel, unknown[]> = {
  info: [],
  openExternal: ["https://example.com/help?x=1"],
  tokenSave: [ID, TOKEN],
  tokenGet: [ID],
  tokenRemove: [ID],
  tokenList: [],
  setupToken: [],
  operatorRevealPassword: ["proxy"],
  operatorChangePassword: ["proxy", "old password 1", "new password 12"],
  operatorRememberPassword: ["parcel", "known password 1"],
  settingsGet: [],
  settingsSet: [{ theme: "dark", parcelPort: 8001 }],
  entriesList: [],
  entriesChoose: [["eth0", "Wi-Fi 2"]],
};

/** Wrong calls of every channel; each list also gets "one argument too many" below. */
const BAD: Record<InvokeChannel, unknown[][]> = {
  info: [],
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
  tokenGet: [[], ["parcel:abc"], [ID.slice(0, 10)], [{ id: ID }]],
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
};

const FOREIGN: IpcSender[] = [
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

const channels = Object.keys(INVOKE_CHANNELS) as InvokeChannel[];

describe("desktop IPC handlers", () => {
  it("has one handler for every channel of the contract, and no other", () => {
    const handlers = createIpcHandlers(fakeDeps().deps);
    expect(Object.keys(handlers).sort()).toEqual([...channels].sort());
    expect(channels.length).toBeGreaterThanOrEqual(14);
  });

  describe.each(channels)("%s", (channel) => {
    it("refuses every caller that is not one of the services' own pages, before any dep runs", async () => {
      const { deps, calls } = fakeDeps();
      const handler = createIpcHandlers(deps)[channel];
      for (const sender of FOREIGN) {
        const reply = await handler(sender, ...GOOD[channel]);
        expect(reply, sender.url).toEqual({
          ok: false,
          code: "ipc.foreign_sender",
          message: expect.any(String),
        });
      }
      expect(calls).toEqual([]);
    });

    it("refuses wrong arguments without echoing them", async () => {
      const { deps, calls, secrets } = fakeDeps();
      const handler = createIpcHandlers(deps)[channel];
      for (const args of [...BAD[channel], [...GOOD[channel], "one too many"]]) {
        const reply = await handler(OWN, ...args);
        expect(reply, JSON.stringify(args)).toEqual({
          ok: false,
          code: "ipc.bad_arguments",
          message: "The request's arguments are not valid.",
        });
      }
      expect(calls).toEqual([]);
      expect(secrets.map.size).toBe(0);
    });

    it("answers a good call from the proxy console too", async () => {
      const { deps } = fakeDeps();
      const reply = await createIpcHandlers(deps)[channel](
        { url: `${PROXY}/settings`, frameIsMain: true },
        ...GOOD[channel],
      );
      expect(reply.ok).toBe(true);
    });
  });

  it("asks for the services' origins on every call, so a restart on another port follows", async () => {
    const { deps, setOrigins } = fakeDeps();
    const handlers = createIpcHandlers(deps);
    expect((await handlers.info(OWN)).ok).toBe(true);
    setOrigins(["http://127.0.0.1:9000"]);
    expect(await handlers.info(OWN)).toMatchObject({ ok: false, code: "ipc.foreign_sender" });
    expect((await handlers.info({ url: "http://127.0.0.1:9000/" })).ok).toBe(true);
  });

  it("passes good calls to their deps and answers their values", async () => {
    const { deps, calls, secrets } = fakeDeps();
    const h = createIpcHandlers(deps);
    expect(await h.info(OWN)).toEqual({
      ok: true,
      value: { parcel: null, proxy: null, dataDir: "/data", error: null },
    });
    expect(await h.openExternal(OWN, ...GOOD.openExternal)).toEqual({ ok: true, value: null });
    expect(await h.setupToken(OWN)).toEqual({ ok: true, value: "setup-token-value" });
    expect(await h.operatorRevealPassword(OWN, "proxy")).toEqual({
      ok: true,
      value: "the-password",
    });
    expect(await h.settingsGet(OWN)).toEqual({ ok: true, value: { theme: "dark" } });
    expect(await h.settingsSet(OWN, ...GOOD.settingsSet)).toEqual({
      ok: true,
      value: { saved: true },
    });
    expect(await h.entriesList(OWN)).toEqual({ ok: true, value: [{ name: "eth0" }] });
    expect(await h.entriesChoose(OWN, ...GOOD.entriesChoose)).toEqual({
      ok: true,
      value: { chosen: ["eth0"] },
    });
    expect(calls).toEqual([
      ["info"],
      ["openExternal", "https://example.com/help?x=1"],
      ["setupToken"],
      ["revealPassword", "proxy"],
      ["settings.get"],
      ["settings.set", { theme: "dark", parcelPort: 8001 }],
      ["entries.list"],
      ["entries.choose", ["eth0", "Wi-Fi 2"]],
    ]);

    expect(await h.tokenSave(OWN, ID, TOKEN)).toEqual({ ok: true, value: null });
    expect(secrets.map.get(`parcel:${ID}`)).toBe(TOKEN);
    expect(await h.tokenGet(OWN, ID)).toEqual({ ok: true, value: TOKEN });
    expect(await h.tokenGet(OWN, "ZZZZZZZZZZZZZZZZZZZZZZ")).toEqual({ ok: true, value: null });
    expect(await h.tokenRemove(OWN, ID)).toEqual({ ok: true, value: null });
    expect(secrets.map.has(`parcel:${ID}`)).toBe(false);
  });

  it("lists only parcel tokens, never the operator's passwords or other secrets", async () => {
    const { deps, secrets } = fakeDeps();
    secrets.set(`parcel:${ID}`, TOKEN);
    secrets.set("parcel:BbBbBbBbBbBbBbBbBbBbBb", TOKEN);
    secrets.set("operator:parcel-admin", "admin password");
    secrets.set("operator:proxy-admin", "proxy password");
    secrets.set("probe:abc", "x");
    secrets.set("parcel:odd/name", "x");
    const reply = await createIpcHandlers(deps).tokenList(OWN);
    expect(reply).toEqual({ ok: true, value: [ID, "BbBbBbBbBbBbBbBbBbBbBb"] });
  });

  it("puts a changed or remembered sign-in into the window's session and gives the page none of it", async () => {
    const { deps, calls } = fakeDeps();
    const h = createIpcHandlers(deps);
    expect(await h.operatorChangePassword(OWN, ...GOOD.operatorChangePassword)).toEqual({
      ok: true,
      value: { ok: true },
    });
    expect(await h.operatorRememberPassword(OWN, ...GOOD.operatorRememberPassword)).toEqual({
      ok: true,
      value: { ok: true },
    });
    expect(calls).toEqual([
      ["changePassword", "proxy", "old password 1", "new password 12"],
      ["setWindowCookies", [COOKIE]],
      ["rememberPassword", "parcel", "known password 1"],
      ["setWindowCookies", [COOKIE]],
    ]);
  });

  it("passes a refused change on as the page's answer and leaves the window's session alone", async () => {
    const refused: PasswordResult = {
      ok: false,
      code: "operator.password_rule",
      message: "The password must be at least 12 bytes long",
      serviceCode: "auth.password_short",
      params: { min: 12 },
    };
    const { deps, calls } = fakeDeps();
    deps.operator.changePassword = async () => refused;
    const reply = await createIpcHandlers(deps).operatorChangePassword(
      OWN,
      ...GOOD.operatorChangePassword,
    );
    expect(reply).toEqual({ ok: true, value: refused });
    expect(calls.filter(([name]) => name === "setWindowCookies")).toEqual([]);
  });

  it("says what to install when no keychain can keep tokens", async () => {
    const choice = chooseSecretStore({
      keyring: unavailableKeyring(),
      safeStorage: null,
      fallbackFile: "/nonexistent/secrets.json",
      platform: "linux",
    });
    if (choice.ok) throw new Error("expected a refusal");
    const { deps } = fakeDeps({ secrets: unavailableStore(choice) });
    const h = createIpcHandlers(deps);
    for (const reply of [await h.tokenSave(OWN, ID, TOKEN), await h.tokenList(OWN)]) {
      expect(reply).toEqual({
        ok: false,
        code: "secrets.no_keychain",
        message:
          "No keychain is available: install and unlock gnome-keyring (or KWallet) and restart Gatehouse.",
      });
    }
  });

  it("answers an unexpected failure with a fixed sentence and reports it to the log only", async () => {
    const logged: Array<[string, unknown]> = [];
    const { deps } = fakeDeps({
      onError: (channel, error) => logged.push([channel, error]),
      entries: {
        list: () => {
          throw new Error("EACCES /home/operator/.config/secret-path");
        },
        choose: () => null,
      },
    });
    const reply = await createIpcHandlers(deps).entriesList(OWN);
    expect(reply).toEqual({
      ok: false,
      code: "ipc.failed",
      message: "Gatehouse could not do this.",
    });
    expect(logged).toHaveLength(1);
    expect(logged[0][0]).toBe(INVOKE_CHANNELS.entriesList);
  });
});

/** A keychain that fails the way @napi-rs/keyring does without a Secret Service. */
function unavailableKeyring(): SecretStore {
  const fail = (): never => {
    throw new Error("keychain: Couldn't access platform storage: Secret Service: no result found");
  };
  return { get: fail, set: fail, delete: fail, list: fail };
}
