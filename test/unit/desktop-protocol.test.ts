import { describe, expect, it } from "vitest";
import { EventEmitter } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Entries } from "../../server/parcel/http/entries.js";
import { checkDataDir, describeStartError } from "../../server/desktop/start-errors.js";
import {
  parentChannel,
  type ParentPortLike,
  type ProcessSide,
} from "../../server/desktop/parent-channel.js";
import {
  checkHostMessage,
  checkServiceMessage,
  type HostMessage,
} from "../../server/desktop/protocol.js";

const READY = {
  type: "ready",
  dataDir: "/data",
  parcel: {
    url: "http://127.0.0.1:8000",
    httpsUrl: null,
    entries: ["http://127.0.0.1:8000", "http://192.168.1.20:8000"],
    adminUser: "admin",
    generatedAdminPassword: "Pw-secret-123456",
  },
  proxy: { url: "http://127.0.0.1:8080", setupToken: "setup-secret-1" },
};

describe("the desktop host protocol", () => {
  it("accepts the host's stop and entries messages", () => {
    expect(checkHostMessage({ type: "stop" })).toEqual({ ok: true, message: { type: "stop" } });
    const entries = ["http://192.168.1.20:8000", "https://192.168.1.20:8443/"];
    expect(checkHostMessage({ type: "entries", entries })).toEqual({
      ok: true,
      message: { type: "entries", entries },
    });
  });

  it.each([
    ["the old plain string", "stop"],
    ["nothing", undefined],
    ["an unknown type", { type: "restart" }],
    ["an empty entries list", { type: "entries", entries: [] }],
    ["an entry with a path", { type: "entries", entries: ["http://192.168.1.20:8000/x"] }],
    ["an entry of another scheme", { type: "entries", entries: ["ftp://192.168.1.20"] }],
    ["an entry with credentials", { type: "entries", entries: ["http://u:p@192.168.1.20"] }],
  ])("refuses %s from the host", (_what, raw) => {
    expect(checkHostMessage(raw).ok).toBe(false);
  });

  it("accepts ready, status, event and error from the services", () => {
    expect(checkServiceMessage(READY)).toEqual({ ok: true, message: READY });
    const status = {
      type: "status",
      entries: ["http://127.0.0.1:8000"],
      core: { installed: true, online: true, node: "Tokyo 1" },
    };
    expect(checkServiceMessage(status)).toEqual({ ok: true, message: status });
    const event = {
      type: "event",
      event: {
        kind: "parcel.picked_up",
        parcelId: "p1",
        file: null,
        files: 3,
        from: "192.168.1.7",
        at: 1_767_225_600_000,
      },
    };
    expect(checkServiceMessage(event)).toEqual({ ok: true, message: event });
    const error = { type: "error", code: "data_dir", message: "Gatehouse cannot use ..." };
    expect(checkServiceMessage(error)).toEqual({ ok: true, message: error });
  });

  it("drops members it does not know, so a newer peer's additions do no harm", () => {
    const checked = checkServiceMessage({ ...READY, later: 1 });
    expect(checked.ok && "later" in checked.message).toBe(false);
  });

  it("names what is wrong with a message without repeating its values", () => {
    const checked = checkServiceMessage({
      ...READY,
      parcel: { ...READY.parcel, url: "Pw-secret-123456" },
    });
    expect(checked.ok).toBe(false);
    const problem = checked.ok ? "" : checked.problem;
    expect(problem).toContain("parcel.url");
    expect(problem).not.toContain("Pw-secret");
    const unknownCode = checkServiceMessage({ type: "error", code: "disk_on_fire", message: "x" });
    expect(unknownCode.ok).toBe(false);
  });
});

/** A process object as the channel sees it, with a record of what was listened to and sent. */
function fakeProcess(withPort: boolean, withSend = true) {
  const emitter = new EventEmitter();
  const port = Object.assign(new EventEmitter(), {
    posted: [] as unknown[],
    postMessage(m: unknown) {
      this.posted.push(m);
    },
  });
  const sent: unknown[] = [];
  const proc = Object.assign(emitter, {
    parentPort: withPort ? (port as ParentPortLike) : undefined,
    send: withSend
      ? (m: unknown) => {
          sent.push(m);
          return true;
        }
      : undefined,
    connected: true,
  });
  return { proc: proc as unknown as ProcessSide & { connected: boolean }, emitter, port, sent };
}

describe("the services' end of the channel", () => {
  it("hears a utility process's parent on parentPort (event.data) and posts there", () => {
    const f = fakeProcess(true, false);
    const problems: string[] = [];
    const channel = parentChannel(f.proc, (p) => problems.push(p));
    const got: HostMessage[] = [];
    channel.onMessage((m) => got.push(m));
    expect(channel.kind).toBe("utility");
    f.port.emit("message", { data: { type: "stop" } });
    f.port.emit("message", { data: "stop" });
    f.port.emit("message", undefined);
    // Nothing is taken from process 'message' in a utility process.
    f.emitter.emit("message", { type: "stop" });
    expect(got).toEqual([{ type: "stop" }]);
    expect(problems).toHaveLength(2);
    channel.post({ type: "error", code: "config", message: "x" });
    expect(f.port.posted).toEqual([{ type: "error", code: "config", message: "x" }]);
  });

  it("hears a Node child's parent on process 'message' and sends with process.send", () => {
    const f = fakeProcess(false);
    const channel = parentChannel(f.proc, () => undefined);
    const got: HostMessage[] = [];
    let gone = 0;
    channel.onMessage((m) => got.push(m));
    channel.onGone(() => gone++);
    expect(channel.kind).toBe("node");
    f.emitter.emit("message", { type: "entries", entries: ["http://10.0.0.2:8000"] });
    expect(got).toEqual([{ type: "entries", entries: ["http://10.0.0.2:8000"] }]);
    channel.post({ type: "status", entries: null, core: null });
    expect(f.sent).toHaveLength(1);
    // A closed channel is not written to (Node would raise an 'error' event on the process).
    f.proc.connected = false;
    channel.post({ type: "status", entries: null, core: null });
    expect(f.sent).toHaveLength(1);
    f.emitter.emit("disconnect");
    expect(gone).toBe(1);
  });

  it("posts nowhere and hears nothing without a parent", () => {
    const f = fakeProcess(false, false);
    const channel = parentChannel(f.proc, () => undefined);
    expect(channel.kind).toBe("none");
    expect(() => channel.post({ type: "status", entries: null, core: null })).not.toThrow();
  });
});

describe("entries replaced while running", () => {
  it("takes a whole new list, or none of it when one address is bad", () => {
    const entries = new Entries(["http://127.0.0.1:8000", "http://localhost:8000"]);
    const before = entries.list;
    entries.replace([
      "http://127.0.0.1:8000",
      "http://192.168.1.20:8000",
      "http://192.168.1.20:8000/",
    ]);
    expect(entries.origins).toEqual(["http://127.0.0.1:8000", "http://192.168.1.20:8000"]);
    expect(entries.hostKnown("192.168.1.20:8000")).toBe(true);
    expect(entries.hostKnown("localhost:8000")).toBe(false);
    // A list handed out earlier is not changed under its holder.
    expect(before.map((e) => e.origin)).toEqual(["http://127.0.0.1:8000", "http://localhost:8000"]);
    expect(() => entries.replace(["http://10.0.0.1:8000", "http://10.0.0.2:8000/path"])).toThrow();
    expect(() => entries.replace([])).toThrow();
    expect(entries.origins).toEqual(["http://127.0.0.1:8000", "http://192.168.1.20:8000"]);
  });
});

describe("start failures in words", () => {
  const dir = mkdtempSync(join(tmpdir(), "gh-start-errors-"));
  const errno = (props: Record<string, unknown>) =>
    Object.assign(new Error(String(props.message ?? "failed")), props);

  it("names a port in use, a refused port and a foreign address", () => {
    expect(
      describeStartError(errno({ code: "EADDRINUSE", syscall: "listen", port: 8000 }), dir),
    ).toEqual({
      code: "port_in_use",
      message:
        "Port 8000 is already used by another program. Close that program or choose another port in the settings.",
    });
    expect(
      describeStartError(errno({ code: "EACCES", syscall: "listen", port: 80 }), dir).code,
    ).toBe("port_denied");
    expect(
      describeStartError(
        errno({ code: "EADDRNOTAVAIL", syscall: "listen", address: "10.9.9.9" }),
        dir,
      ),
    ).toMatchObject({ code: "config", message: expect.stringContaining("10.9.9.9") });
  });

  it("blames the data folder only for file errors inside it", () => {
    const inside = describeStartError(
      errno({ code: "EACCES", path: join(dir, "parcel", "parcel.db") }),
      dir,
    );
    expect(inside).toEqual({
      code: "data_dir",
      message: `Gatehouse cannot use its data folder ${dir}: this user may not write there. Choose another folder or check its permissions.`,
    });
    expect(describeStartError(errno({ code: "SQLITE_CANTOPEN" }), dir).code).toBe("data_dir");
    expect(describeStartError(errno({ code: "EACCES", path: "/usr/bin/mihomo" }), dir).code).toBe(
      "start_failed",
    );
    expect(describeStartError(new Error("boom"), dir)).toEqual({
      code: "start_failed",
      message: "The services could not start: boom",
    });
  });

  it("checks that the data folder is a folder this user can write", () => {
    expect(checkDataDir(join(dir, "new", "nested"))).toBeNull();
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    expect(checkDataDir(file)).toMatchObject({
      code: "data_dir",
      message: expect.stringContaining("a file is in the way"),
    });
    expect(checkDataDir("/proc/gatehouse-test/x")).toMatchObject({
      code: "data_dir",
      message: expect.stringContaining("cannot be created there"),
    });
  });
});
