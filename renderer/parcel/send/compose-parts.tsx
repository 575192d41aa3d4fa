import { useId, type KeyboardEvent } from "react";
import { useT } from "../i18n.js";
import { Notice } from "../ui/notice.js";
import { sendDict } from "./i18n.js";
import { useSend, type Cancelled, type Mode } from "./store.js";

/** Files or Text: two tabs that choose what the parcel carries. */
export function ModeTabs({ mode, onMode }: { mode: Mode; onMode(mode: Mode): void }) {
  const t = useT(sendDict);
  const modes: Mode[] = ["files", "text"];
  // Arrow keys move between tabs, as in any tab list.
  const onKey = (e: KeyboardEvent<HTMLButtonElement>) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    e.preventDefault();
    const next = mode === "files" ? "text" : "files";
    onMode(next);
    document.getElementById(`send-tab-${next}`)?.focus();
  };
  return (
    <div className="send-tabs" role="tablist" aria-label={t("tabs")}>
      {modes.map((m) => (
        <button
          key={m}
          id={`send-tab-${m}`}
          type="button"
          role="tab"
          className="send-tab"
          aria-selected={mode === m}
          aria-controls={`send-panel-${m}`}
          tabIndex={mode === m ? 0 : -1}
          onClick={() => onMode(m)}
          onKeyDown={onKey}
        >
          {m === "files" ? t("tabFiles") : t("tabText")}
        </button>
      ))}
    </div>
  );
}

export function TextPanel({
  text,
  name,
  problems,
}: {
  text: string;
  name: string;
  problems: string[];
}) {
  const t = useT(sendDict);
  const setText = useSend((s) => s.setText);
  const id = useId();
  return (
    <div
      className="field send-text"
      id="send-panel-text"
      role="tabpanel"
      aria-labelledby="send-tab-text"
    >
      <label htmlFor={id}>{t("textLabel")}</label>
      <textarea
        id={id}
        className="send-textarea"
        rows={8}
        value={text}
        spellCheck={false}
        aria-describedby={`${id}-note`}
        onChange={(e) => setText(e.target.value)}
      />
      <span id={`${id}-note`} className="field-hint">
        {text === "" ? t("textEmpty") : t("textHint", { name })}
      </span>
      {problems.map((line) => (
        <Notice key={line} kind="error">
          {line}
        </Notice>
      ))}
    </div>
  );
}

/** What became of a cancelled upload, until something new is chosen. */
export function CancelledNotice({ cancelled }: { cancelled: Cancelled }) {
  const t = useT(sendDict);
  const dismiss = useSend((s) => s.dismissCancelled);
  const words =
    cancelled.outcome === "pending"
      ? t("cancelling")
      : cancelled.outcome === "unconfirmed"
        ? t("cancelUnconfirmed")
        : cancelled.mode === "text"
          ? t("cancelledText")
          : cancelled.files === 1
            ? t("cancelledFile")
            : t("cancelledFiles", { n: cancelled.files });
  return (
    <Notice
      kind={cancelled.outcome === "unconfirmed" ? "warn" : "info"}
      action={
        <button type="button" className="small" onClick={dismiss}>
          {t("dismiss")}
        </button>
      }
    >
      {words}
    </Notice>
  );
}
