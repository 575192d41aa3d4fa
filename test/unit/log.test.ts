import { describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { USAGE } from "../../server/config.js";
import {
  createLogger,
  createServiceLog,
  LOG_LEVELS,
  loggerForLines,
  RECENT_PROBLEMS,
  REDACTED,
  scrubUrls,
  type LogLevel,
} from "../../server/log.js";
import { problem } from "../../server/problem-codes.js";

/** A logger that keeps its JSON lines, parsed. */
function capture(level: LogLevel = "trace") {
  const lines: string[] = [];
  const logger = createLogger({ level, destination: { write: (s: string) => lines.push(s) } });
  const entries = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  return { logger, lines, entries };
}

describe("scrubUrls", () => {
  it("keeps only the scheme and host of every address in a sentence", () => {
    expect(
      scrubUrls(
        "fetching https://user:pa55@sub.example.com:8443/api/SECRETPATH?token=SECRET#x failed",
      ),
    ).toBe("fetching https://sub.example.com:8443/… failed");
    expect(scrubUrls("node ss://YWVzOnB3@1.2.3.4:8388#name")).toBe("node ss://1.2.3.4:8388/…");
    expect(scrubUrls("see http://host.lan")).toBe("see http://host.lan");
  });
  it("leaves sentences without an address alone", () => {
    const s = "GET /api/v1/uploads/abc failed: ENOENT: no such file";
    expect(scrubUrls(s)).toBe(s);
  });
});

describe("createLogger", () => {
  it("writes one JSON object per line with an ISO time and the level's name", () => {
    const c = capture("info");
    c.logger.info({ n: 1 }, "hello");
    c.logger.debug("not written at info");
    expect(c.lines).toHaveLength(1);
    expect(c.lines[0].endsWith("\n")).toBe(true);
    const [e] = c.entries();
    expect(e).toMatchObject({ level: "info", msg: "hello", n: 1 });
    expect(new Date(e.time as string).toISOString()).toBe(e.time);
  });
  it("redacts secret-shaped fields and headers, at any of the first three depths", () => {
    const c = capture();
    c.logger.info(
      {
        password: "p1",
        token: "t1",
        body: { manage_token: "m1", code: "c1", secret: "s1", nested: { setupToken: "u1" } },
        req: {
          headers: {
            authorization: "Bearer b1",
            cookie: "k1",
            "set-cookie": "k2",
            "x-csrf-token": "x1",
            accept: "text/plain",
          },
        },
      },
      "entry",
    );
    const text = c.lines.join("");
    for (const secret of ["p1", "t1", "m1", "c1", "s1", "u1", "b1", "k1", "k2", "x1"])
      expect(text).not.toContain(`"${secret}"`);
    expect(text).toContain(REDACTED);
    expect(text).toContain("text/plain");
  });
  it("serialises an error with its cause chain and keeps a system error's code", () => {
    const c = capture();
    const inner = Object.assign(new Error("disk full"), { code: "ENOSPC" });
    c.logger.error({ err: new Error("outer", { cause: inner }) }, "failed");
    const text = c.lines.join("");
    expect(text).toContain("outer");
    expect(text).toContain("disk full");
    expect(text).toContain('"errorCode":"ENOSPC"');
  });
  it("redacts a `code` on an error that is not a system error's code", () => {
    const c = capture();
    c.logger.error({ err: Object.assign(new Error("x"), { code: "ABCDEFGH" }) }, "failed");
    expect(c.lines.join("")).not.toContain("ABCDEFGH");
  });
});

describe("createServiceLog", () => {
  it("keeps the last warnings and errors, newest first, with their request id", () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const c = capture();
    const log = createServiceLog(c.logger, clock);
    log.info("not a problem");
    log("a plain line");
    log.warn("upload.not_stored", "disk nearly full", {
      requestId: "r1",
      params: { name: "a.txt" },
    });
    clock.advance(1000);
    log.error("cleanup.failed", "cleanup failed", { err: new Error("database is locked") });
    log("core exited", problem("error", "core.exited", { params: { exit_code: 2 } }));
    expect(log.recent()).toEqual([
      {
        timeMs: clock.now(),
        level: "error",
        code: "core.exited",
        params: { exit_code: 2 },
        message: "core exited",
        requestId: null,
      },
      {
        timeMs: clock.now(),
        level: "error",
        code: "cleanup.failed",
        params: {},
        message: "cleanup failed: database is locked",
        requestId: null,
      },
      {
        timeMs: clock.now() - 1000,
        level: "warn",
        code: "upload.not_stored",
        params: { name: "a.txt" },
        message: "disk nearly full",
        requestId: "r1",
      },
    ]);
    expect(c.entries().map((e) => [e.level, e.msg])).toEqual([
      ["info", "not a problem"],
      ["info", "a plain line"],
      ["warn", "disk nearly full"],
      ["error", "cleanup failed"],
      ["error", "core exited"],
    ]);
    expect(c.entries()[2].requestId).toBe("r1");
  });
  it("holds a bounded number of problems", () => {
    const log = createServiceLog(capture().logger, new ManualClock());
    for (let i = 0; i < RECENT_PROBLEMS + 15; i++) log.warn("cleanup.failed", `problem ${i}`);
    const recent = log.recent();
    expect(recent).toHaveLength(RECENT_PROBLEMS);
    expect(recent[0].message).toBe(`problem ${RECENT_PROBLEMS + 14}`);
    expect(recent[RECENT_PROBLEMS - 1].message).toBe("problem 15");
  });
  it("keeps problems for the console even when the output is silent", () => {
    const c = capture("silent");
    const log = createServiceLog(c.logger, new ManualClock());
    log.error("cleanup.failed", "broken");
    expect(c.lines).toEqual([]);
    expect(log.recent().map((p) => p.message)).toEqual(["broken"]);
  });
  it("never writes an address's path, query or user part, in the log or the list", () => {
    const c = capture();
    const log = createServiceLog(c.logger, new ManualClock());
    log.warn(
      "core.close_failed",
      "refresh of https://feed.example/sub/TOKEN1?token=TOKEN2 failed",
      {
        err: new Error("redirected to https://u:TOKEN3@cdn.example/x"),
      },
    );
    const text = c.lines.join("") + JSON.stringify(log.recent());
    for (const secret of ["TOKEN1", "TOKEN2", "TOKEN3"]) expect(text).not.toContain(secret);
    expect(log.recent()[0].message).toBe(
      "refresh of https://feed.example/… failed: redirected to https://cdn.example/…",
    );
  });
  it("sends JSON lines to a plain line sink", () => {
    const lines: string[] = [];
    const log = createServiceLog(
      loggerForLines((l) => lines.push(l)),
      new ManualClock(),
    );
    log.info("hello", { n: 2 });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ level: "info", msg: "hello", n: 2 });
  });
});

describe("--log-level in the usage text", () => {
  it("lists every level", () => {
    const line = USAGE.split("\n").find((l) => l.includes("--log-level")) ?? "";
    for (const level of LOG_LEVELS) expect(line).toContain(level);
  });
});
