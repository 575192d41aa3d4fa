import pino, { type DestinationStream, type Logger } from "pino";
import { constants } from "node:os";
import type { Clock } from "./clock.js";
import { COMMON_ERRORS, type ErrorParams } from "./http/error-codes.js";
import { PARCEL_ERRORS } from "./parcel/error-codes.js";
import type { LineProblem, ProblemArgs, ProblemCode } from "./problem-codes.js";
import { PROXY_ERRORS } from "./proxy/error-codes.js";

/** The levels `--log-level` accepts, most severe first; `silent` writes nothing. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const DEFAULT_LOG_LEVEL: LogLevel = "info";

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * Field names and headers whose values are secrets. Nothing should ever hand them to the
 * logger (call sites log ids and counts, not credentials); this only catches a mistake.
 */
const SECRET_FIELDS = [
  "password",
  "token",
  "manage_token",
  "code",
  "secret",
  "setupToken",
  "cookie",
  "csrf",
];
const SECRET_HEADERS = ["authorization", "cookie", '"set-cookie"', '"x-csrf-token"'];
export const REDACTED = "[redacted]";

function redactPaths(): string[] {
  const paths: string[] = [];
  for (const f of SECRET_FIELDS) paths.push(f, `*.${f}`, `*.*.${f}`);
  for (const h of SECRET_HEADERS) {
    const key = h.startsWith('"') ? `[${h}]` : `.${h}`;
    paths.push(`headers${key}`, `*.headers${key}`);
  }
  return paths;
}

const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*):\/\/([^\s"'<>]+)/gi;

/**
 * Cuts every URL in a sentence down to its scheme and host: subscription addresses often
 * carry their token in the path, the query or the user part, and node URIs (`ss://`,
 * `trojan://`) carry passwords, so only the host is ever written.
 */
export function scrubUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (_whole, scheme: string, rest: string) => {
    const authority = rest.split(/[/?#]/, 1)[0];
    const host = authority.slice(authority.lastIndexOf("@") + 1);
    return `${scheme}://${host}${host.length < rest.length ? "/…" : ""}`;
  });
}

/** A system error's code (`ENOSPC`, `ERR_STREAM_PREMATURE_CLOSE`, `SQLITE_BUSY`). */
function isSystemCode(value: unknown): value is string {
  return (
    typeof value === "string" &&
    (value in constants.errno || /^(ERR|SQLITE)_[A-Z0-9_]+$/.test(value))
  );
}

/**
 * Strings of a serialised error (message, stack, causes) with their addresses cut down. A
 * system error's `code` moves to `errorCode`, since a field named `code` is redacted.
 */
function scrubDeep(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return scrubUrls(value);
  if (depth > 6 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k === "code" && isSystemCode(v) ? "errorCode" : k] = scrubDeep(v, depth + 1);
  }
  return out;
}

function serializeError(err: unknown): unknown {
  return scrubDeep(err instanceof Error ? pino.stdSerializers.errWithCause(err) : err);
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where JSON lines go; stderr by default, so stdout keeps only the start-up lines. */
  destination?: DestinationStream;
}

/** The process-wide logger: one JSON object per line, secret-shaped fields redacted. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? DEFAULT_LOG_LEVEL,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: redactPaths(), censor: REDACTED },
      serializers: { err: serializeError },
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

/** A logger whose JSON lines go to a plain line sink (`log: (line) => ...` of older callers). */
export function loggerForLines(sink: (line: string) => void, level?: LogLevel): Logger {
  return createLogger({ level, destination: { write: (s: string) => sink(s.trimEnd()) } });
}

export type LineLevel = "info" | "warn" | "error";
/**
 * The plain form modules take: a sentence, and for a warning or an error its code and params
 * (`log("...", problem("warn", "core.restart_partial"))`, see server/problem-codes.ts).
 */
export type LineLog = (line: string, problem?: LineProblem) => void;

export interface LogFields {
  /** The request the entry belongs to, when there is one. */
  requestId?: string | null;
  /** An error; logged with its cause chain. */
  err?: unknown;
  /** The coded error a problem is about when `err` is its cause (kept for the list only). */
  reason?: unknown;
  [field: string]: unknown;
}

/** One warning or error kept for the administrator. */
export interface RecentProblem {
  /** ms since the epoch, from the service's clock. */
  timeMs: number;
  level: "warn" | "error";
  /** Names the problem for pages that say it in the reader's language. */
  code: ProblemCode;
  /**
   * The values its sentence names; with `reason_code` (and that error's own values) when the
   * error behind it has a code.
   */
  params: ErrorParams;
  /** The English sentence, as the log file has it. */
  message: string;
  requestId: string | null;
}

export const RECENT_PROBLEMS = 20;

/**
 * A service's logger: structured entries (`log.warn(code, "...", { requestId, err })`), the plain
 * line form older modules call (`log("...")`), and the last warnings and errors kept in
 * memory for the console, whatever level the output is filtered at. `C` is the set of problem
 * codes the service may record (its pages have a sentence for each).
 */
export interface ServiceLog<C extends ProblemCode = ProblemCode> extends LineLog {
  readonly pino: Logger;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn<K extends C>(code: K, message: string, ...rest: ProblemArgs<K, LogFields>): void;
  error<K extends C>(code: K, message: string, ...rest: ProblemArgs<K, LogFields>): void;
  /** The last warnings and errors, newest first. */
  recent(): RecentProblem[];
  /**
   * Whether a lasting condition (a sign-in block, a used-up allowance) is new: true the first
   * time `key` is asked, then false until `untilMs` (service clock) has passed. So a block is
   * recorded when it starts, not again for every request refused behind it. Decided in one
   * synchronous step, so parallel requests record it once.
   */
  firstTime(key: string, untilMs: number): boolean;
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

const ERROR_CODES = new Set<string>([
  ...Object.keys(COMMON_ERRORS),
  ...Object.keys(PARCEL_ERRORS),
  ...Object.keys(PROXY_ERRORS),
]);
/** Values of an error that are someone else's own words (the core's, a parser's): left out. */
const OWN_WORDS = new Set(["detail", "reason"]);
const MAX_PARAM = 200;

/** A value small enough to keep, with any address cut down to its host. */
function keptParam(value: unknown): string | number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string") return null;
  const text = scrubUrls(value);
  return text.length > MAX_PARAM ? `${text.slice(0, MAX_PARAM)}…` : text;
}

/** The coded error behind a problem, as `reason_code` and that error's own values. */
function reasonOf(err: unknown): ErrorParams {
  if (typeof err !== "object" || err === null) return {};
  const { code, params } = err as { code?: unknown; params?: unknown };
  if (typeof code !== "string" || !ERROR_CODES.has(code)) return {};
  const out: Record<string, string | number> = { reason_code: code };
  if (typeof params === "object" && params !== null) {
    for (const [k, v] of Object.entries(params)) {
      const kept = OWN_WORDS.has(k) ? null : keptParam(v);
      if (kept !== null) out[k] = kept;
    }
  }
  return out;
}

function paramsOf(given: unknown, err: unknown): ErrorParams {
  const out: Record<string, string | number> = { ...reasonOf(err) };
  if (typeof given === "object" && given !== null) {
    for (const [k, v] of Object.entries(given)) {
      const kept = keptParam(v);
      if (kept !== null) out[k] = kept;
    }
  }
  return out;
}

/** More lasting conditions than this at once: the ones that have ended are forgotten. */
const CONDITIONS_KEPT = 1000;

export function createServiceLog<C extends ProblemCode = ProblemCode>(
  logger: Logger,
  clock: Clock,
  keep = RECENT_PROBLEMS,
): ServiceLog<C> {
  const ring: RecentProblem[] = [];
  const lasting = new Map<string, number>();
  const firstTime = (key: string, untilMs: number): boolean => {
    const now = clock.now();
    const until = lasting.get(key);
    if (until !== undefined && until > now) return false;
    if (lasting.size >= CONDITIONS_KEPT) {
      for (const [k, u] of lasting) if (u <= now) lasting.delete(k);
      // A flood of distinct keys (addresses) still cannot grow the map without bound.
      if (lasting.size >= CONDITIONS_KEPT) lasting.delete(lasting.keys().next().value as string);
    }
    lasting.set(key, untilMs);
    return true;
  };
  const write = (
    level: "debug" | "info" | "warn" | "error",
    message: string,
    fields: LogFields = {},
    code?: ProblemCode,
  ): void => {
    const text = scrubUrls(message);
    let entry = fields;
    if (code !== undefined && (level === "warn" || level === "error")) {
      const params = paramsOf(fields.params, fields.reason ?? fields.err);
      const detail = fields.err === undefined ? "" : `: ${scrubUrls(errorText(fields.err))}`;
      ring.push({
        timeMs: clock.now(),
        level,
        code,
        params,
        message: text + detail,
        requestId: fields.requestId ?? null,
      });
      if (ring.length > keep) ring.shift();
      // The file names the problem too (`code` itself is a redacted field name).
      const { reason: _reason, ...rest } = fields;
      entry = { ...rest, problem: code, params };
    }
    if (logger.isLevelEnabled(level)) logger[level](entry, text);
  };
  const log = ((line: string, p?: LineProblem) =>
    p
      ? write(p.level, line, { params: p.params, err: p.err }, p.code)
      : write("info", line)) as ServiceLog<C>;
  return Object.assign(log, {
    pino: logger,
    debug: (m: string, f?: LogFields) => write("debug", m, f),
    info: (m: string, f?: LogFields) => write("info", m, f),
    warn: (code: C, m: string, f?: LogFields) => write("warn", m, f, code),
    error: (code: C, m: string, f?: LogFields) => write("error", m, f, code),
    recent: () => ring.slice().reverse(),
    firstTime,
  });
}
