import { describe, expect, it } from "vitest";
import { CHANNEL_AUDIENCE, createIpcHandlers } from "../../main/ipc/handlers.js";
import type { PasswordResult } from "../../main/operator/types.js";
import { chooseSecretStore, unavailableStore } from "../../main/secrets/choose.js";
import type { SecretStore } from "../../main/secrets/keychain.js";
import { INVOKE_CHANNELS, type InvokeChannel } from "../../preload/contract.js";
import {
  BAD,
  COOKIE,
  fakeDeps,
  FOREIGN,
  GOOD,
  ID,
  OWN,
  SERVICE,
  SERVICE_PAGES,
  TOKEN,
} from "../helpers/desktop-ipc-fixtures.js";

const channels = Object.keys(INVOKE_CHANNELS) as InvokeChannel[];

describe("desktop IPC handlers", () => {
  it("has one handler for every channel of the contract, and no other", () => {
    const handlers = createIpcHandlers(fakeDeps().deps);
    expect(Object.keys(handlers).sort()).toEqual([...channels].sort());
    expect(channels.length).toBeGreaterThanOrEqual(15);
  });

  it("keeps every channel that reveals or changes what the operator keeps for the app page", () => {
    const appOnly = channels.filter((c) => CHANNEL_AUDIENCE[c] === "app").sort();
    expect(appOnly).toEqual(
      [
        "entriesChoose",
        "entriesList",
        "inboxChooseFolder",
        "inboxClose",
        "inboxOpen",
        "inboxShowInFolder",
        "inboxView",
        "operatorChangePassword",
        "operatorRevealPassword",
        "setupToken",
      ].sort(),
    );
    // No channel reads a kept token back: the main process attaches it to requests itself.
    expect(Object.values(INVOKE_CHANNELS).filter((c) => /token-get/.test(c))).toEqual([]);
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

    it("answers a good call from the app's own page", async () => {
      const { deps } = fakeDeps();
      const reply = await createIpcHandlers(deps)[channel](OWN, ...GOOD[channel]);
      expect(reply.ok).toBe(true);
    });

    it(`answers the services' pages (loopback and LAN) only if it reveals nothing kept`, async () => {
      const { deps, calls } = fakeDeps();
      const handler = createIpcHandlers(deps)[channel];
      // A service page may change only the look; the good call here changes a port too.
      const forService = channel === "settingsSet" ? [{ theme: "dark" }] : GOOD[channel];
      for (const sender of SERVICE_PAGES) {
        const reply = await handler(sender, ...forService);
        if (CHANNEL_AUDIENCE[channel] === "window") expect(reply.ok, sender.url).toBe(true);
        else {
          expect(reply, sender.url).toMatchObject({ ok: false, code: "ipc.foreign_sender" });
        }
      }
      if (CHANNEL_AUDIENCE[channel] === "app") expect(calls).toEqual([]);
    });
  });

  it("asks for the services' origins on every call, so a restart on another port follows", async () => {
    const { deps, setOrigins } = fakeDeps();
    const handlers = createIpcHandlers(deps);
    expect((await handlers.info(SERVICE)).ok).toBe(true);
    setOrigins(["http://127.0.0.1:9000"]);
    expect(await handlers.info(SERVICE)).toMatchObject({ ok: false, code: "ipc.foreign_sender" });
    expect((await handlers.info({ url: "http://127.0.0.1:9000/" })).ok).toBe(true);
    // The app page does not depend on the services' ports.
    expect((await handlers.setupToken(OWN)).ok).toBe(true);
  });

  it("lets a service page change the shared look and nothing else", async () => {
    const { deps, calls } = fakeDeps();
    const h = createIpcHandlers(deps);
    expect(await h.settingsSet(SERVICE, { language: "zh-CN", theme: "dark" })).toEqual({
      ok: true,
      value: { saved: true },
    });
    for (const patch of [
      { parcelPort: 8001 },
      { theme: "dark", coreBinary: "/tmp/x" },
      { host: "0.0.0.0" },
    ])
      expect(await h.settingsSet(SERVICE, patch)).toMatchObject({
        ok: false,
        code: "ipc.foreign_sender",
      });
    expect(calls).toEqual([["settings.set", { language: "zh-CN", theme: "dark" }]]);
    expect((await h.settingsSet(OWN, { coreBinary: "/usr/local/bin/mihomo" })).ok).toBe(true);
  });

  it("says whether the app keeps a password without ever answering it", async () => {
    const { deps } = fakeDeps();
    const h = createIpcHandlers(deps);
    expect(await h.operatorKeepsPassword(SERVICE, "proxy", "the-password")).toEqual({
      ok: true,
      value: true,
    });
    expect(await h.operatorKeepsPassword(SERVICE, "proxy", "another one")).toEqual({
      ok: true,
      value: false,
    });
    deps.operator.revealPassword = () => null;
    expect(await h.operatorKeepsPassword(SERVICE, "proxy", "the-password")).toEqual({
      ok: true,
      value: false,
    });
  });

  it("passes good calls to their deps and answers their values", async () => {
    const { deps, calls, secrets } = fakeDeps();
    const h = createIpcHandlers(deps);
    expect(await h.info(OWN)).toEqual({
      ok: true,
      value: { parcel: null, proxy: null, dataDir: "/data", error: null },
    });
    expect(await h.openExternal(OWN, ...GOOD.openExternal)).toEqual({ ok: true, value: null });
    expect(await h.open(SERVICE, "settings")).toEqual({ ok: true, value: null });
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
      ["open", "settings"],
      ["setupToken"],
      ["revealPassword", "proxy"],
      ["settings.get"],
      ["settings.set", { theme: "dark", parcelPort: 8001 }],
      ["entries.list"],
      ["entries.choose", ["eth0", "Wi-Fi 2"]],
    ]);

    expect(await h.tokenSave(SERVICE, ID, TOKEN)).toEqual({ ok: true, value: null });
    expect(secrets.map.get(`parcel:${ID}`)).toBe(TOKEN);
    expect(await h.tokenList(SERVICE)).toEqual({ ok: true, value: [ID] });
    expect(await h.tokenRemove(SERVICE, ID)).toEqual({ ok: true, value: null });
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
