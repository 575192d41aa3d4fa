import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { COMMON_ERRORS, type ErrorRegistry } from "../../server/http/error-codes.js";
import { HttpError } from "../../server/http/errors.js";
import { createServiceLog, loggerForLines } from "../../server/log.js";
import { PARCEL_ERRORS } from "../../server/parcel/error-codes.js";
import {
  COMMON_PROBLEMS,
  PARCEL_PROBLEMS,
  problem,
  PROXY_PROBLEMS,
} from "../../server/problem-codes.js";
import { PROXY_ERRORS } from "../../server/proxy/error-codes.js";

const ROOT = join(import.meta.dirname, "../..");
const PROBLEMS: Record<string, ErrorRegistry> = {
  common: COMMON_PROBLEMS,
  parcel: PARCEL_PROBLEMS,
  proxy: PROXY_PROBLEMS,
};
const ERRORS = new Set([COMMON_ERRORS, PARCEL_ERRORS, PROXY_ERRORS].flatMap((r) => Object.keys(r)));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Source without its comments (an example in a comment is not a call). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

const FILES = sources(join(ROOT, "server"))
  .map((path) => ({ file: relative(ROOT, path), text: code(readFileSync(path, "utf8")) }))
  .filter((f) => f.file !== "server/problem-codes.ts" && f.file !== "server/log.ts");

/** The codes a file may record: the shared ones, and its own service's. */
function allowed(file: string): Set<string> {
  const own = file.startsWith("server/parcel/")
    ? PARCEL_PROBLEMS
    : file.startsWith("server/proxy/")
      ? PROXY_PROBLEMS
      : {};
  return new Set([...Object.keys(COMMON_PROBLEMS), ...Object.keys(own)]);
}

interface Call {
  where: string;
  file: string;
  /** The text where the code should be. */
  args: string;
}

/**
 * The services' own modules: their loggers are ServiceLogs (elsewhere, such as the desktop
 * runner, `log` is a plain pino logger whose entries reach no console list).
 */
const SERVICE_DIRS = ["server/http/", "server/parcel/", "server/proxy/"];

function calls(pattern: RegExp): Call[] {
  const out: Call[] = [];
  for (const { file, text } of FILES) {
    if (!SERVICE_DIRS.some((d) => file.startsWith(d))) continue;
    for (const m of text.matchAll(pattern)) {
      const line = text.slice(0, m.index).split("\n").length;
      out.push({ where: `${file}:${line}`, file, args: text.slice(m.index + m[0].length) });
    }
  }
  return out;
}

/** The string literal a call starts with, or null when it starts with something else. */
function literal(args: string): string | null {
  return /^\s*"([^"]+)"/.exec(args)?.[1] ?? null;
}

describe("the recorded-problem registries", () => {
  it("name every code area.reason in lower case, with plain param names", () => {
    for (const [name, registry] of Object.entries(PROBLEMS)) {
      for (const [code, params] of Object.entries(registry)) {
        expect(code, name).toMatch(/^[a-z]+\.[a-z][a-z_]*$/);
        for (const p of params) expect(`${code} ${p}`).toMatch(/ [a-z][a-z_]*\??$/);
      }
    }
  });

  it("give each code one meaning: one registry, and no error code of the same name", () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [name, registry] of Object.entries(PROBLEMS)) {
      for (const code of Object.keys(registry)) {
        if (seen.has(code)) twice.push(`${code} in ${seen.get(code)} and ${name}`);
        if (ERRORS.has(code)) twice.push(`${code} is also an error code`);
        seen.set(code, name);
      }
    }
    expect(twice).toEqual([]);
  });

  it("list only codes the services record", () => {
    const text = FILES.map((f) => f.text).join("\n");
    const all = Object.values(PROBLEMS).flatMap((r) => Object.keys(r));
    expect(all.filter((code) => !text.includes(`"${code}"`))).toEqual([]);
  });
});

describe("every warning and error the services record", () => {
  it("names a registered code of its own service", () => {
    // log.warn("code", ...), ctx.log.error("code", ...), problem("warn", "code", ...)
    const structured = calls(/\b(?:log|ctx\.log|this\.log)\.(?:warn|error)\(/g);
    const lines = calls(/\bproblem\(\s*"(?:warn|error)",/g);
    expect(structured.length + lines.length).toBeGreaterThanOrEqual(12);
    const bad = [...structured, ...lines].filter(({ file, args }) => {
      const code = literal(args);
      return code === null || !allowed(file).has(code);
    });
    expect(bad.map((b) => `${b.where}: ${b.args.split("\n")[0]}`)).toEqual([]);
  });

  it("never hands the line form a bare level", () => {
    // `log("...", "warn")` was the old form: a problem without a code.
    const bare = calls(/\blog\([^;]*?,\s*"(?:warn|error)"\s*\)/g);
    expect(bare.map((b) => b.where)).toEqual([]);
  });
});

describe("a recorded problem", () => {
  const make = () =>
    createServiceLog(
      loggerForLines(() => undefined),
      new ManualClock(5000),
    );

  it("keeps its code and params, and the code and params of the error behind it", () => {
    const log = make();
    const err = new HttpError(500, "download.read_failed", "The file could not be read");
    log.error("request.failed", "GET /x failed", { requestId: "r1", err });
    log(
      "Scheduled refresh failed",
      problem("warn", "subscription.scheduled_refresh_failed", {
        params: { name: "Home" },
        err: new HttpError(502, "subscription.fetch_status", "The server answered 503", {
          params: { status: 503 },
        }),
      }),
    );
    expect(log.recent().map((p) => [p.level, p.code, p.params])).toEqual([
      [
        "warn",
        "subscription.scheduled_refresh_failed",
        { name: "Home", reason_code: "subscription.fetch_status", status: 503 },
      ],
      ["error", "request.failed", { reason_code: "download.read_failed" }],
    ]);
  });

  it("leaves out another program's own words, a system error's code and any address", () => {
    const log = make();
    const core = new HttpError(400, "core.config_rejected", "rejected: level=error ...", {
      params: { detail: "time=... level=error msg=... /home/me/secret-path" },
    });
    log.error("core.did_not_start", "The proxy core did not start", { err: core });
    const system = Object.assign(new Error("no space"), { code: "ENOSPC" });
    log.error("cleanup.failed", "The periodic cleanup failed", { err: system });
    log.warn("subscription.scheduled_refresh_failed", "refresh failed", {
      params: { name: "https://sub.example/TOKEN123/feed" },
    });
    const [named, cleanup, core1] = log.recent();
    expect(core1.params).toEqual({ reason_code: "core.config_rejected" });
    expect(cleanup.params).toEqual({});
    expect(JSON.stringify(named.params)).not.toContain("TOKEN123");
  });
});
