import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { staticDirFrom } from "../../server/host.js";

describe("where the services find the web UI", () => {
  const has =
    (...paths: string[]) =>
    (p: string) =>
      paths.includes(p);

  it("uses the UI beside the code root (tsx in a checkout, the installed app)", () => {
    const ui = join("/app", "renderer", "dist");
    expect(staticDirFrom("/app", has(ui))).toBe(ui);
  });

  it("finds a checkout's UI from the compiled services in dist/main (npm start)", () => {
    const ui = join("/repo", "renderer", "dist");
    expect(staticDirFrom("/repo/dist/main", has(ui))).toBe(ui);
  });

  it("has none when the UI was not built", () => {
    expect(staticDirFrom("/repo/dist/main", has())).toBeUndefined();
  });
});
