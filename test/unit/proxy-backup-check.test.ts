import { describe, expect, it } from "vitest";
import { checkBackup } from "../../renderer/proxy/system/backup-check.js";

/** The console reads a chosen file with the contract's backup schema before it asks anything. */
describe("checkBackup", () => {
  const state = {
    settings: {},
    subscriptions: [
      {
        id: "a".repeat(24),
        name: "Home",
        url: "https://sub.example/x",
        enabled: true,
        intervalHours: 24,
      },
    ],
    rules: [{ id: "b".repeat(24) }, { id: "c".repeat(24) }],
  };

  it("names what a backup holds and when it was made", () => {
    const body = { version: 1, exportedAt: "2026-11-28T12:00:00.000Z", state };
    expect(checkBackup(JSON.stringify(body))).toEqual({
      kind: "backup",
      body,
      exportedAt: "2026-11-28T12:00:00.000Z",
      subscriptions: 1,
      rules: 2,
    });
    expect(checkBackup(JSON.stringify({ version: 1, state }))).toMatchObject({
      kind: "backup",
      exportedAt: null,
    });
  });

  it("tells bytes that are no JSON, JSON of another shape, and another version apart", () => {
    expect(checkBackup("\u00ff\u00d8\u00ff\u00e0 JFIF")).toEqual({ kind: "not_json" });
    expect(checkBackup("")).toEqual({ kind: "not_json" });
    expect(checkBackup(JSON.stringify({ hello: 1 }))).toEqual({ kind: "not_backup" });
    expect(checkBackup("null")).toEqual({ kind: "not_backup" });
    expect(checkBackup(JSON.stringify([1, 2]))).toEqual({ kind: "not_backup" });
    expect(checkBackup(JSON.stringify({ version: 1, state: { settings: {} } }))).toEqual({
      kind: "not_backup",
    });
    expect(checkBackup(JSON.stringify({ version: 2, state }))).toEqual({ kind: "other_version" });
  });
});
