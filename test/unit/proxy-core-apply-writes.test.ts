import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { createCoreManager } from "../../server/proxy/core/index.js";
import { compileConfig, providerText } from "../../server/proxy/core/compile.js";
import { nodesFromJson, nodesJson } from "../../server/proxy/store/nodes-json.js";
import { DEFAULT_SETTINGS, type CoreInput, type MihomoProxy } from "../../server/proxy/types.js";

const A = "a".repeat(24);
const B = "b".repeat(24);
let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gatehouse-apply-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function nodes(prefix: string, n: number): MihomoProxy[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `${prefix} ${i}`,
    type: "ss",
    server: `s${i}.example`,
    port: 1000 + i,
    cipher: "aes-128-gcm",
    password: `pw${i}`,
  }));
}

function manager() {
  return createCoreManager({
    homeDir: join(dir, "core"),
    service: "process",
    unit: "gatehouse-mihomo.service",
    controllerPort: 1,
    clock: new ManualClock(),
    log: () => undefined,
  });
}

const provider = (id: string) => join(dir, "core", "providers", `${id}.yaml`);

describe("applying a configuration", () => {
  it("writes again only the provider files whose nodes changed, each exactly its nodes' JSON", async () => {
    const m = manager();
    const a = nodes("A", 50);
    const input = (b: MihomoProxy[]): CoreInput => ({
      settings: { ...DEFAULT_SETTINGS },
      subscriptions: [
        { id: A, name: "a", nodes: a },
        { id: B, name: "b", nodes: b },
      ],
      rules: [],
    });
    await m.apply(input(nodes("B", 10)));
    const before = { a: statSync(provider(A)).ino, b: statSync(provider(B)).ino };
    const refreshed = nodes("B2", 20);
    await m.apply(input(refreshed));
    expect(statSync(provider(A)).ino).toBe(before.a);
    expect(statSync(provider(B)).ino).not.toBe(before.b);
    expect(readFileSync(provider(B), "utf8")).toBe(`${JSON.stringify({ proxies: refreshed })}\n`);
    expect(readFileSync(provider(A), "utf8")).toBe(`${JSON.stringify({ proxies: a })}\n`);
    // A file gone from under the manager is written again.
    rmSync(provider(A));
    await m.apply(input(refreshed));
    expect(readFileSync(provider(A), "utf8")).toBe(`${JSON.stringify({ proxies: a })}\n`);
    await m.close();
  });

  it("compiles the same text as before for node lists read back from their JSON", () => {
    const list = nodes("X", 5);
    const text = nodesJson(list);
    expect(text).toBe(JSON.stringify(list));
    const back = nodesFromJson(text);
    expect(back).toEqual(list);
    expect(nodesJson(back)).toBe(text);
    expect(providerText(back)).toBe(`${JSON.stringify({ proxies: list })}\n`);
    const input = (n: MihomoProxy[]): CoreInput => ({
      settings: { ...DEFAULT_SETTINGS },
      subscriptions: [{ id: A, name: "a", nodes: n }],
      rules: [],
    });
    const opts = { controllerPort: 9090, secret: "s" };
    expect(compileConfig(input(back), opts)).toEqual(compileConfig(input(list), opts));
    // Another configuration is written anew, not the last one kept.
    const other = compileConfig(
      { ...input(list), settings: { ...DEFAULT_SETTINGS, mixedPort: 7001 } },
      opts,
    );
    expect(other.yaml).toContain("mixed-port: 7001");
    expect(compileConfig(input(list), opts).yaml).toContain("mixed-port: 7890");
  });
});
