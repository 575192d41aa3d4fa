import { useEffect, useMemo, useRef, useState } from "react";
import { codedText } from "../core/core-words.js";
import { useT, type Key, type Translate } from "../i18n.js";
import { useApp } from "../store.js";
import { useEventStream, type StreamState } from "../sse.js";
import { LogItem, LogsEnded } from "../../../server/contract/proxy.js";
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

function rank(type: string): number {
  const i = LEVELS.indexOf(type.toLowerCase() as Level);
  return i < 0 ? 1 : i;
}

/** `<epoch>.<seq>`: the service's name of a kept line. */
function parseId(id: string): { epoch: string; seq: number } | null {
  const m = /^([0-9a-f]+)\.(\d+)$/.exec(id);
  return m ? { epoch: m[1], seq: Number(m[2]) } : null;
}

/** Why the service ended the log stream, by its code and values, in the reader's language. */
export function endedText(raw: string, t: Translate): string {
  let error = "";
  try {
    // Each member read on its own: a reason with no code is still said.
    const body = LogsEnded.partial().parse(JSON.parse(raw));
    error = codedText(body.code ?? "", body.params ?? {}, body.error ?? "", t);
  } catch {
    error = raw;
  }
  return error || t("logs.noReason");
}

export function LogsScreen() {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const [lines, setLines] = useState<Line[]>([]);
  const [level, setLevel] = useState<Level>("info");
  const [paused, setPaused] = useState(false);
  const [held, setHeld] = useState(0);
  const [stream, setStream] = useState<StreamState>("connecting");
  // What the service said when the stream ended, worded when shown (a change of language rewords it).
  const [ended, setEnded] = useState<{ raw: string } | null>(null);
  const disconnected = ended ? endedText(ended.raw, t) : "";
  const [query, setQuery] = useState("");
  // The line shown whole above the list (a long one is cut in its row, worst on a phone).
  const [opened, setOpened] = useState<Line | null>(null);
  const whole = useRef<HTMLDivElement>(null);
  const open = (l: Line) => {
    setOpened(l);
    requestAnimationFrame(() => whole.current?.scrollIntoView({ block: "nearest" }));
  };
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

  useEventStream(
    "GET /logs",
    {
      log: (raw, id) => {
        const named = parseId(id);
        const last = seen.current;
        if (named && last && named.epoch === last.epoch && named.seq <= last.seq) return;
        if (named) seen.current = named;
        const read = LogItem.safeParse(JSON.parse(raw));
        if (!read.success) return;
        const item = read.data;
        const at = (item.time && Date.parse(item.time)) || Date.now();
        const line: Line = { ...item, seq: ++seq.current, at };
        if (pausedRef.current) {
          // While paused, new lines wait so the view holds still.
          buffer.current.push(line);
          if (buffer.current.length > KEEP) buffer.current.splice(0, buffer.current.length - KEEP);
          setHeld(buffer.current.length);
        } else {
          // A busy core logs hundreds of lines a second: append them in one render per frame.
          incoming.current.push(line);
          if (flush.current === 0) {
            flush.current = requestAnimationFrame(() => {
              flush.current = 0;
              const batch = incoming.current.splice(0);
              setLines((prev) => [...prev, ...batch].slice(-KEEP));
            });
          }
        }
      },
      disconnected: (raw) => setEnded({ raw }),
    },
    setStream,
    !disconnected,
  );

  const resume = () => {
    setLines((prev) => [...prev, ...buffer.current].slice(-KEEP));
    buffer.current = [];
    setHeld(0);
    setPaused(false);
  };
  const shown = useMemo(() => {
    const q = query.trim().toLowerCase();
    return lines.filter(
      (l) =>
        rank(l.type) >= LEVELS.indexOf(level) &&
        (!q || l.payload.toLowerCase().includes(q) || l.type.toLowerCase().includes(q)),
    );
  }, [lines, level, query]);

  return (
    <Card title={t("logs.title")}>
      <p className="muted">{t("logs.keptHint")}</p>
      <div className="toolbar-row">
        <label className="grow">
          <span className="sr-only">{t("logs.search")}</span>
          <input
            type="search"
            placeholder={t("logs.search")}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </label>
        <label>
          {t("logs.level")}{" "}
          <select value={level} onChange={(e) => setLevel(e.target.value as Level)}>
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
          onClick={() => (paused ? resume() : setPaused(true))}
        >
          {paused ? t("logs.resume", { n: held }) : t("logs.pause")}
        </button>
        <button
          type="button"
          onClick={() => {
            setLines([]);
            buffer.current = [];
            setHeld(0);
          }}
        >
          {t("logs.clear")}
        </button>
        <span className="muted" role="status">
          {disconnected
            ? t("logs.stateDisconnected")
            : stream === "open"
              ? t("logs.stateLive")
              : t("logs.stateConnecting")}
          {" · "}
          {t("logs.count", { shown: shown.length, total: lines.length })}
        </span>
      </div>
      {disconnected ? (
        <div className="alert alert-error" role="alert">
          {t("logs.disconnected", { error: disconnected })}{" "}
          <button
            type="button"
            onClick={() => {
              setEnded(null);
            }}
          >
            {t("logs.reconnect")}
          </button>
        </div>
      ) : null}
      {stream === "error" && !disconnected ? <Alert text={t("logs.streamLost")} /> : null}
      {shown.length === 0 ? (
        <p className="muted">
          {lines.length > 0 && query.trim() ? t("logs.noMatch") : t("logs.empty")}
        </p>
      ) : null}
      {shown.length > 0 ? <p className="muted log-tap-hint">{t("logs.tapHint")}</p> : null}
      {opened ? (
        <div className="log-whole" ref={whole} role="region" aria-label={t("logs.wholeLine")}>
          <div className="log-whole-head">
            <span className="muted mono">{new Date(opened.at).toLocaleTimeString(lang)}</span>
            <span className={`level level-${opened.type.toLowerCase()}`}>
              {TYPE_WORDS[opened.type.toLowerCase()]
                ? t(TYPE_WORDS[opened.type.toLowerCase()])
                : opened.type}
            </span>
            <button type="button" className="small" onClick={() => setOpened(null)}>
              {t("logs.wholeClose")}
            </button>
          </div>
          <p className="mono log-whole-text">{opened.payload}</p>
        </div>
      ) : null}
      <div className="table log-table" role="table" aria-label={t("logs.title")}>
        <VirtualList
          items={shown}
          rowHeight={26}
          height="min(65vh, 700px)"
          label={t("logs.lines")}
          stickToEnd={!paused}
          onRowClick={open}
          rowClass={(l) => (opened?.seq === l.seq ? "vrow-picked" : "")}
          render={(l) => (
            <>
              <span role="cell" className="muted mono">
                {new Date(l.at).toLocaleTimeString(lang)}
              </span>
              <span role="cell" className={`level level-${l.type.toLowerCase()}`}>
                {TYPE_WORDS[l.type.toLowerCase()] ? t(TYPE_WORDS[l.type.toLowerCase()]) : l.type}
              </span>
              <span role="cell" className="mono ellipsis" title={l.payload}>
                <button
                  type="button"
                  className="linkish log-open"
                  onClick={(e) => (e.stopPropagation(), open(l))}
                >
                  {l.payload}
                </button>
              </span>
            </>
          )}
        />
      </div>
    </Card>
  );
}
