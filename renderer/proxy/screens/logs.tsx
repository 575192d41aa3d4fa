import { useEffect, useMemo, useRef, useState } from "react";
import { useT } from "../i18n.js";
import { useEventStream, type StreamState } from "../sse.js";
import type { LogItem } from "../types.js";
import { Alert, Card } from "../ui.js";
import { VirtualList } from "../virtual-list.js";

const KEEP = 5000;
const LEVELS = ["debug", "info", "warning", "error"] as const;
type Level = (typeof LEVELS)[number];

interface Line extends LogItem {
  seq: number;
  at: string;
}

function rank(type: string): number {
  const i = LEVELS.indexOf(type.toLowerCase() as Level);
  return i < 0 ? 1 : i;
}

export function LogsScreen() {
  const t = useT();
  const [lines, setLines] = useState<Line[]>([]);
  const [level, setLevel] = useState<Level>("info");
  const [paused, setPaused] = useState(false);
  const [held, setHeld] = useState(0);
  const [stream, setStream] = useState<StreamState>("connecting");
  const [disconnected, setDisconnected] = useState("");
  const seq = useRef(0);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const buffer = useRef<Line[]>([]);
  const incoming = useRef<Line[]>([]);
  const flush = useRef(0);
  useEffect(() => () => cancelAnimationFrame(flush.current), []);

  useEventStream(
    "/logs",
    {
      log: (raw) => {
        const item = JSON.parse(raw) as LogItem;
        const line: Line = { ...item, seq: ++seq.current, at: new Date().toLocaleTimeString() };
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
      disconnected: (raw) => {
        let error = "";
        try {
          error = String((JSON.parse(raw) as { error?: unknown }).error ?? "");
        } catch {
          error = raw;
        }
        setDisconnected(error || t("logs.noReason"));
      },
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
  const shown = useMemo(
    () => lines.filter((l) => rank(l.type) >= LEVELS.indexOf(level)),
    [lines, level],
  );

  return (
    <Card title={t("logs.title")}>
      <div className="toolbar-row">
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
              setDisconnected("");
            }}
          >
            {t("logs.reconnect")}
          </button>
        </div>
      ) : null}
      {stream === "error" && !disconnected ? <Alert text={t("logs.streamLost")} /> : null}
      {shown.length === 0 ? <p className="muted">{t("logs.empty")}</p> : null}
      <div className="table log-table" role="table" aria-label={t("logs.title")}>
        <VirtualList
          items={shown}
          rowHeight={26}
          height="min(65vh, 700px)"
          label={t("logs.lines")}
          stickToEnd={!paused}
          render={(l) => (
            <>
              <span role="cell" className="muted mono">
                {l.at}
              </span>
              <span role="cell" className={`level level-${l.type.toLowerCase()}`}>
                {l.type}
              </span>
              <span role="cell" className="mono ellipsis" title={l.payload}>
                {l.payload}
              </span>
            </>
          )}
        />
      </div>
    </Card>
  );
}
