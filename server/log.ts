import pino, { type DestinationStream, type Logger } from "pino";
import { constants } from "node:os";
import type { Clock } from "./clock.js";

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
/** The plain form modules take: a sentence and, for a problem, its level (default info). */
export type LineLog = (line: string, level?: LineLevel) => void;

export interface LogFields {
  /** The request the entry belongs to, when there is one. */
  requestId?: string | null;
  /** An error; logged with its cause chain. */
  err?: unknown;
  [field: string]: unknown;
}

/** One warning or error kept for the administrator. */
export interface RecentProblem {
  /** ms since the epoch, from the service's clock. */
  timeMs: number;
  level: "warn" | "error";
  /** A sentence a person can read. */
  message: string;
  requestId: string | null;
}

export const RECENT_PROBLEMS = 20;

/**
 * A service's logger: structured entries (`log.warn("...", { requestId, err })`), the plain
 * line form older modules call (`log("...")`), and the last warnings and errors kept in
 * memory for the console, whatever level the output is filtered at.
 */
export interface ServiceLog extends LineLog {
  readonly pino: Logger;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** The last warnings and errors, newest first. */
  recent(): RecentProblem[];
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

export function createServiceLog(logger: Logger, clock: Clock, keep = RECENT_PROBLEMS): ServiceLog {
  const ring: RecentProblem[] = [];
  const write = (
    level: "debug" | "info" | "warn" | "error",
    message: string,
    fields: LogFields = {},
  ): void => {
    const text = scrubUrls(message);
    if (level === "warn" || level === "error") {
      const detail = fields.err === undefined ? "" : `: ${scrubUrls(errorText(fields.err))}`;
      ring.push({
        timeMs: clock.now(),
        level,
        message: text + detail,
        requestId: fields.requestId ?? null,
      });
      if (ring.length > keep) ring.shift();
    }
    if (logger.isLevelEnabled(level)) logger[level](fields, text);
  };
  const log = ((line: string, level: LineLevel = "info") => write(level, line)) as ServiceLog;
  return Object.assign(log, {
    pino: logger,
    debug: (m: string, f?: LogFields) => write("debug", m, f),
    info: (m: string, f?: LogFields) => write("info", m, f),
    warn: (m: string, f?: LogFields) => write("warn", m, f),
    error: (m: string, f?: LogFields) => write("error", m, f),
    recent: () => ring.slice().reverse(),
  });
}
