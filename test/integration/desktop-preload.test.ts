import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_CHANNELS, INVOKE_CHANNELS } from "../../preload/contract.js";

/**
 * The preload as Electron loads it: the bundle `npm run build:preload` writes, run in a fresh
 * context whose `require` knows only `electron` (as a sandboxed preload's does). Its channel
 * names must be the contract's, since the bundle copies them from there.
 */

let dir = "";
let code = "";

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gh-preload-"));
  execFileSync(process.execPath, ["preload/build.mjs", join(dir, "index.cjs")], { stdio: "pipe" });
  code = readFileSync(join(dir, "index.cjs"), "utf8");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Listener = (event: unknown, ...args: unknown[]) => void;

/** Runs the bundle with a stand-in `electron`; returns the exposed API and what it sent. */
function load(
  reply: (channel: string, args: unknown[]) => unknown = () => ({ ok: true, value: null }),
) {
  const invoked: Array<{ channel: string; args: unknown[] }> = [];
  const listeners = new Map<string, Set<Listener>>();
  const exposed: Record<string, unknown> = {};
  const electron = {
    contextBridge: {
      exposeInMainWorld: (key: string, api: unknown) => {
        exposed[key] = api;
      },
    },
    ipcRenderer: {
      invoke: async (channel: string, ...args: unknown[]) => {
        invoked.push({ channel, args });
        return reply(channel, args);
      },
      on: (channel: string, listener: Listener) => {
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel)?.add(listener);
      },
      removeListener: (channel: string, listener: Listener) => {
        listeners.get(channel)?.delete(listener);
      },
    },
  };
  const required: string[] = [];
  const sandboxRequire = (name: string): unknown => {
    required.push(name);
    if (name === "electron") return electron;
    throw new Error(`a sandboxed preload cannot require ${name}`);
  };
  const module = { exports: {} };
  vm.runInNewContext(code, { require: sandboxRequire, module, exports: module.exports });
  return { api: exposed.gatehouse as Api, invoked, listeners, required, exposed };
}

type Api = Record<string, Record<string, (...args: unknown[]) => Promise<unknown> | (() => void)>>;

/** One call of every method that invokes main, with the channel and arguments it must use. */
const CALLS: Array<[string, string, unknown[], string]> = [
  ["app", "info", [], INVOKE_CHANNELS.info],
  ["app", "open", ["settings"], INVOKE_CHANNELS.open],
  ["app", "openExternal", ["https://example.com/"], INVOKE_CHANNELS.openExternal],
  ["tokens", "save", ["parcel-id", "token"], INVOKE_CHANNELS.tokenSave],
  ["tokens", "remove", ["parcel-id"], INVOKE_CHANNELS.tokenRemove],
  ["tokens", "list", [], INVOKE_CHANNELS.tokenList],
  ["proxy", "setupToken", [], INVOKE_CHANNELS.setupToken],
  ["operator", "revealPassword", ["proxy"], INVOKE_CHANNELS.operatorRevealPassword],
  ["operator", "changePassword", ["proxy", "a", "b"], INVOKE_CHANNELS.operatorChangePassword],
  ["operator", "rememberPassword", ["parcel", "a"], INVOKE_CHANNELS.operatorRememberPassword],
  ["operator", "keepsPassword", ["proxy", "a"], INVOKE_CHANNELS.operatorKeepsPassword],
  ["settings", "get", [], INVOKE_CHANNELS.settingsGet],
  ["settings", "set", [{ theme: "dark" }], INVOKE_CHANNELS.settingsSet],
  ["entries", "list", [], INVOKE_CHANNELS.entriesList],
  ["entries", "choose", [["eth0"]], INVOKE_CHANNELS.entriesChoose],
  ["inbox", "view", [], INVOKE_CHANNELS.inboxView],
  ["inbox", "open", [60, null], INVOKE_CHANNELS.inboxOpen],
  ["inbox", "close", [], INVOKE_CHANNELS.inboxClose],
  ["inbox", "showInFolder", ["parcel-id"], INVOKE_CHANNELS.inboxShowInFolder],
  ["inbox", "chooseFolder", [], INVOKE_CHANNELS.inboxChooseFolder],
];

describe("desktop preload bundle", () => {
  it("is one CommonJS file whose only require is electron", () => {
    const requires = code.match(/\brequire\s*\(\s*[^)]*\)/g) ?? [];
    expect(requires).toEqual(['require("electron")']);
    expect(code).not.toMatch(/^\s*(import|export)\s/m);
    expect(code).not.toMatch(/\bimport\s*\(/);
    const { required } = load();
    expect(required).toEqual(["electron"]);
  });

  it("is what build:main ends with, so a build never ships tsc's unbundled preload", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts["build:preload"]).toBe("node preload/build.mjs");
    // build:main compiles, then build:main:files copies the services' other files and ends
    // with the preload (the packaged-layout test runs the same two steps, the compile emit-only).
    expect(pkg.scripts["build:main"]).toBe(
      "npm run build:main:compile && npm run build:main:files",
    );
    expect(pkg.scripts["build:main:compile"]).toBe("tsc -p tsconfig.main.json");
    expect(pkg.scripts["build:main:files"]).toMatch(/&& npm run build:preload$/);
  });

  it("exposes window.gatehouse and nothing else", () => {
    const { exposed, api } = load();
    expect(Object.keys(exposed)).toEqual(["gatehouse"]);
    expect(Object.keys(api).sort()).toEqual(
      ["app", "entries", "inbox", "operator", "proxy", "settings", "tokens"].sort(),
    );
  });

  it("calls main on the contract's channel names, every one of them", async () => {
    const { api, invoked } = load();
    for (const [area, method, args, channel] of CALLS) {
      await api[area][method](...args);
      expect(invoked.at(-1), `${area}.${method}`).toEqual({ channel, args });
    }
    expect(new Set(invoked.map((i) => i.channel))).toEqual(new Set(Object.values(INVOKE_CHANNELS)));
    // Every method of the API is covered above (besides the status subscription).
    const methods = Object.entries(api).flatMap(([area, o]) =>
      Object.keys(o).map((m) => `${area}.${m}`),
    );
    expect(methods.filter((m) => m !== "app.onServiceStatus").sort()).toEqual(
      CALLS.map(([a, m]) => `${a}.${m}`).sort(),
    );
  });

  it("resolves with main's value and rejects with a refusal's code and sentence", async () => {
    const { api } = load((channel) =>
      channel === INVOKE_CHANNELS.setupToken
        ? { ok: true, value: "the-token" }
        : {
            ok: false,
            code: "ipc.foreign_sender",
            message: "Only Gatehouse's own pages may ask for this.",
          },
    );
    await expect(api.proxy.setupToken()).resolves.toBe("the-token");
    await expect(api.tokens.list()).rejects.toThrow(
      "ipc.foreign_sender: Only Gatehouse's own pages may ask for this.",
    );
  });

  it("subscribes to service status on the contract's event channel and unsubscribes", () => {
    const { api, listeners } = load();
    const seen: unknown[] = [];
    const unsubscribe = api.app.onServiceStatus((info: unknown) => {
      seen.push(info);
    }) as () => void;
    const registered = [...(listeners.get(EVENT_CHANNELS.status) ?? [])];
    expect(registered).toHaveLength(1);
    registered[0]({}, { dataDir: "/d" });
    expect(seen).toEqual([{ dataDir: "/d" }]);
    unsubscribe();
    expect(listeners.get(EVENT_CHANNELS.status)?.size).toBe(0);
  });
});
