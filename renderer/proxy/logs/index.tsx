import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from "react";
import { codedText } from "../core/core-words.js";
import { useT, type Key, type Translate } from "../i18n.js";
import { useApp } from "../store.js";
import { useEventStream, type StreamState } from "../sse.js";
import { LogItem, LogItemSchema, LogsEndedSchema } from "../../../server/contract/proxy.js";
import { useCoreWatch } from "../core/core-watch.js";
import { Alert, Card } from "../parts/ui.js";
import { VirtualList } from "../parts/virtual-list.js";

const KEEP = 5000;
const LEVELS = ["debug", "info", "warning", "error"] as const;
type Level = (typeof LEVELS)[number];

interface Line extends LogItem {
  seq: number;
  /** When the service received it (ms), shown in the reader's language. */
  at: number;
}

/** The core's level names, said in the reader's language (an unknown one as it came). */
const TYPE_WORDS: Record<string, Key> = {
  debug: "logs.typeDebug",
  info: "logs.typeInfo",
  warning: "logs.typeWarning",
  error: "logs.typeError",
};

/** A line's level in the reader's words (an unknown one as the core wrote it). */
function typeWord(type: string, t: Translate): string {
  const key = TYPE_WORDS[type.toLowerCase()];
  return key ? t(key) : type;
}

function rank(type: string): number {
  const i = LEVELS.indexOf(type.toLowerCase() as Level);
  return i < 0 ? 1 : i;
}

/** `<epoch>.<seq>`: the service's name of a kept line. */
function parseId(id: string): { epoch: string; seq: number } | null {
  const m = /^([0-9a-f]+)\.(\d+)$/.exec(id);
  return m ? { epoch: m[1], seq: Number(m[2]) } : null;
}

/** The code the service gave for ending the log stream ("" without one). */
function endedCodeOf(raw: string): string {
  try {
    return LogsEndedSchema.partial().parse(JSON.parse(raw)).code ?? "";
  } catch {
    return "";
  }
}

/** Ends that mean only "the core is not running": nothing went wrong if it was stopped. */
const NOT_RUNNING = new Set(["core.unreachable", "core.logs_ended"]);

/** Why the service ended the log stream, by its code and values, in the reader's language. */
export function endedText(raw: string, t: Translate): string {
  let error = "";
  try {
    // Each member read on its own: a reason with no code is still said.
    const body = LogsEndedSchema.partial().parse(JSON.parse(raw));
    error = codedText(body.code ?? "", body.params ?? {}, body.error ?? "", t);
  } catch {
    error = raw;
  }
  return error || t("logs.noReason");
}

/**
 * The core's log lines as the service streams them: a reconnection skips the lines already
 * here, lines arriving while paused wait (at most KEEP) until resumed, and a busy core's lines
 * are appended once per frame.
 */
function useLogLines(paused: boolean) {
  const t = useT();
  const [lines, setLines] = useState<Line[]>([]);
  const [held, setHeld] = useState(0);
  const [stream, setStream] = useState<StreamState>("connecting");
  // What the service said when the stream ended, worded when shown (a change of language rewords it).
  const [ended, setEnded] = useState<{ raw: string } | null>(null);
  const disconnected = ended ? endedText(ended.raw, t) : "";
  const seq = useRef(0);
  // The last line received by its service id: after a reconnection the service sends the kept
  // lines again, and those already here are skipped (so Clear also stays cleared).
  const seen = useRef<{ epoch: string; seq: number } | null>(null);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const buffer = useRef<Line[]>([]);
  const incoming = useRef<Line[]>([]);
  const flush = useRef(0);
  useEffect(() => () => cancelAnimationFrame(flush.current), []);

  const hold = (line: Line) => {
    // While paused, new lines wait so the view holds still.
    buffer.current.push(line);
    if (buffer.current.length > KEEP) buffer.current.splice(0, buffer.current.length - KEEP);
    setHeld(buffer.current.length);
  };
  const append = (line: Line) => {
    // A busy core logs hundreds of lines a second: append them in one render per frame.
    incoming.current.push(line);
    if (flush.current !== 0) return;
    flush.current = requestAnimationFrame(() => {
      flush.current = 0;
      const batch = incoming.current.splice(0);
      setLines((prev) => [...prev, ...batch].slice(-KEEP));
    });
  };
  const onLog = (raw: string, id: string) => {
    const named = parseId(id);
    const last = seen.current;
    if (named && last && named.epoch === last.epoch && named.seq <= last.seq) return;
    if (named) seen.current = named;
    const read = LogItemSchema.safeParse(JSON.parse(raw));
    if (!read.success) return;
    const item = read.data;
    const at = (item.time && Date.parse(item.time)) || Date.now();
    const line: Line = { ...item, seq: ++seq.current, at };
    if (pausedRef.current) hold(line);
    else append(line);
  };
  useEventStream(
    "GET /logs",
    { log: onLog, disconnected: (raw) => setEnded({ raw }) },
    setStream,
    !disconnected,
  );

  const takeHeld = () => {
    setLines((prev) => [...prev, ...buffer.current].slice(-KEEP));
    buffer.current = [];
    setHeld(0);
  };
  const clear = () => {
    setLines([]);
    buffer.current = [];
    setHeld(0);
  };
  const reconnect = useCallback(() => setEnded(null), []);
  const endedCode = ended ? endedCodeOf(ended.raw) : "";
  return { lines, held, stream, disconnected, endedCode, reconnect, takeHeld, clear };
}

type LogLines = ReturnType<typeof useLogLines>;

function shownLines(lines: Line[], level: Level, query: string): Line[] {
  const q = query.trim().toLowerCase();
  return lines.filter(
    (l) =>
      rank(l.type) >= LEVELS.indexOf(level) &&
      (!q || l.payload.toLowerCase().includes(q) || l.type.toLowerCase().includes(q)),
  );
}

interface ToolbarProps {
  log: LogLines;
  shown: number;
  query: string;
  onQuery(q: string): void;
  level: Level;
  onLevel(l: Level): void;
  paused: boolean;
  onPause(paused: boolean): void;
}

function LogToolbar({ log, shown, query, onQuery, level, onLevel, paused, onPause }: ToolbarProps) {
  const t = useT();
  const state = log.disconnected
    ? t("logs.stateDisconnected")
    : log.stream === "open"
      ? t("logs.stateLive")
      : t("logs.stateConnecting");
  return (
    <div className="toolbar-row">
      <label className="grow">
        <span className="sr-only">{t("logs.search")}</span>
        <input
          type="search"
          placeholder={t("logs.search")}
          value={query}
          onChange={(e) => onQuery(e.target.value)}
        />
      </label>
      <label>
        {t("logs.level")}{" "}
        <select value={level} onChange={(e) => onLevel(e.target.value as Level)}>
          {LEVELS.map((l) => (
            <option key={l} value={l}>
              {t(`logs.${l}`)}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        aria-pressed={paused}
        onClick={() => (paused ? (log.takeHeld(), onPause(false)) : onPause(true))}
      >
        {paused ? t("logs.resume", { n: log.held }) : t("logs.pause")}
      </button>
      <button type="button" onClick={log.clear}>
        {t("logs.clear")}
      </button>
      <span className="muted" role="status">
        {state}
        {" · "}
        {t("logs.count", { shown, total: log.lines.length })}
      </span>
    </div>
  );
}

/** The line shown whole above the list (a long one is cut in its row, worst on a phone). */
function WholeLine(props: { line: Line; onClose(): void; at: RefObject<HTMLDivElement | null> }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const { line } = props;
  return (
    <div className="log-whole" ref={props.at} role="region" aria-label={t("logs.wholeLine")}>
      <div className="log-whole-head">
        <span className="muted mono">{new Date(line.at).toLocaleTimeString(lang)}</span>
        <span className={`level level-${line.type.toLowerCase()}`}>{typeWord(line.type, t)}</span>
        <button type="button" className="small" onClick={props.onClose}>
          {t("logs.wholeClose")}
        </button>
      </div>
      <p className="mono log-whole-text">{line.payload}</p>
    </div>
  );
}

function LogRows(props: {
  shown: Line[];
  paused: boolean;
  opened: Line | null;
  onOpen(l: Line): void;
}) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const { opened, onOpen } = props;
  return (
    <div className="table log-table" role="table" aria-label={t("logs.title")}>
      <VirtualList
        items={props.shown}
        rowHeight={26}
        height="min(65vh, 700px)"
        label={t("logs.lines")}
        stickToEnd={!props.paused}
        onRowClick={onOpen}
        rowClass={(l) => (opened?.seq === l.seq ? "vrow-picked" : "")}
        render={(l) => (
          <>
            <span role="cell" className="muted mono">
              {new Date(l.at).toLocaleTimeString(lang)}
            </span>
            <span role="cell" className={`level level-${l.type.toLowerCase()}`}>
              {typeWord(l.type, t)}
            </span>
            <span role="cell" className="mono ellipsis" title={l.payload}>
              <button
                type="button"
                className="linkish log-open"
                onClick={(e) => (e.stopPropagation(), onOpen(l))}
              >
                {l.payload}
              </button>
            </span>
          </>
        )}
      />
    </div>
  );
}

/**
 * The stream ended (the core stopped, or never ran): say why, and follow the core back. The
 * stream opens again by itself once the core is seen down and then running, so a person who
 * starts it elsewhere sees its lines here without a click; Reconnect stays for the rest.
 */
function StreamEnded({ log }: { log: LogLines }) {
  const t = useT();
  const core = useCoreWatch(log.reconnect);
  // Said once the core's state is known (a first answer takes a moment), so a stopped core's
  // screen does not flash red first.
  if (!core.known) return null;
  // Stopped on purpose (or never started) is a state, as on the dashboard, not a fault; a
  // named problem (a port another program holds) is still said in red.
  if (core.stoppedOnPurpose && NOT_RUNNING.has(log.endedCode)) {
    return <Alert kind="info" text={t("logs.coreStopped")} />;
  }
  return (
    <div className="alert alert-error" role="alert">
      {t("logs.disconnected", { error: log.disconnected })}{" "}
      {NOT_RUNNING.has(log.endedCode) ? t("logs.followsCore") + " " : null}
      <button type="button" onClick={log.reconnect}>
        {t("logs.reconnect")}
      </button>
    </div>
  );
}

function StreamProblems({ log }: { log: LogLines }) {
  const t = useT();
  if (log.disconnected) return <StreamEnded log={log} />;
  return log.stream === "error" ? <Alert text={t("logs.streamLost")} /> : null;
}

export function LogsScreen() {
  const t = useT();
  const [level, setLevel] = useState<Level>("info");
  const [paused, setPaused] = useState(false);
  const [query, setQuery] = useState("");
  const log = useLogLines(paused);
  const [opened, setOpened] = useState<Line | null>(null);
  const whole = useRef<HTMLDivElement>(null);
  const open = (l: Line) => {
    setOpened(l);
    requestAnimationFrame(() => whole.current?.scrollIntoView({ block: "nearest" }));
  };
  const { lines } = log;
  const shown = useMemo(() => shownLines(lines, level, query), [lines, level, query]);

  return (
    <Card title={t("logs.title")}>
      <p className="muted">{t("logs.keptHint")}</p>
      <LogToolbar
        {...{ log, query, level, paused }}
        shown={shown.length}
        onQuery={setQuery}
        onLevel={setLevel}
        onPause={setPaused}
      />
      <StreamProblems log={log} />
      {/* No lines: one sentence, not an empty box of rows under it. */}
      {shown.length === 0 ? (
        <p className="muted">
          {lines.length > 0 && query.trim() ? t("logs.noMatch") : t("logs.empty")}
        </p>
      ) : (
        <p className="muted log-tap-hint">{t("logs.tapHint")}</p>
      )}
      {opened ? <WholeLine line={opened} at={whole} onClose={() => setOpened(null)} /> : null}
      {shown.length > 0 ? (
        <LogRows shown={shown} paused={paused} opened={opened} onOpen={open} />
      ) : null}
    </Card>
  );
}
