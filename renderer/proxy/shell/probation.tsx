import { useCallback, useEffect, useRef, useState } from "react";
import { ProbationState } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { serviceText } from "../errors/errors-i18n.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { errorText } from "../parts/ui.js";
import "./styles-probation.css";

/** How often the banner asks the service (a change saved on any screen shows within this). */
const POLL_MS = 2000;

/**
 * Confirm or revert, on every screen of the console: after a settings change that can cut the
 * operator off, a countdown with Keep and Undo now; after the service undid an unconfirmed
 * change, a notice that says so. The seconds are counted here between two answers of the
 * service, from the remaining time it gave (never from this device's clock against its
 * deadline: the two clocks need not agree).
 */
/** Fired on `window` when a probation ended, so a settings form does not show undone values. */
export const SETTINGS_CHANGED = "gatehouse:proxy-settings-changed";
/** Fired on `window` by a screen whose save answered with a probation: the banner asks now. */
export const PROBATION_STARTED = "gatehouse:proxy-probation-started";

/**
 * The service's probation state, asked every POLL_MS, on focus and when a screen started one;
 * `left` counts down between two answers from the remaining time the service gave.
 */
function useProbation() {
  const [state, setState] = useState<ProbationState | null>(null);
  const [left, setLeft] = useState(0);
  const endsAt = useRef(0);
  const pending = useRef(false);

  const load = useCallback(async () => {
    try {
      const s = await api("GET /system/probation");
      setState(s);
      // Kept, undone or rolled back: screens showing the settings read them again.
      if (pending.current && !s.probation) window.dispatchEvent(new Event(SETTINGS_CHANGED));
      pending.current = s.probation !== null;
      if (s.probation) {
        endsAt.current = performance.now() + s.probation.remainingSeconds * 1000;
        setLeft(s.probation.remainingSeconds);
      }
    } catch {
      // Cut off or signed out: the countdown goes on from the last answer.
    }
  }, []);

  useEffect(() => {
    void load();
    const poll = setInterval(() => void load(), POLL_MS);
    const tick = setInterval(() => {
      setLeft(Math.max(0, Math.ceil((endsAt.current - performance.now()) / 1000)));
    }, 250);
    const onFocus = () => void load();
    window.addEventListener("focus", onFocus);
    window.addEventListener(PROBATION_STARTED, onFocus);
    return () => {
      clearInterval(poll);
      clearInterval(tick);
      window.removeEventListener("focus", onFocus);
      window.removeEventListener(PROBATION_STARTED, onFocus);
    };
  }, [load]);
  return { state, left, load };
}

type Busy = "" | "keep" | "undo";

/** The countdown with Keep and Undo now. */
function Countdown(props: { left: number; busy: Busy; onAct(kind: "keep" | "undo"): void }) {
  const t = useT();
  const { left, busy } = props;
  const undoing = busy === "undo" || left === 0;
  return (
    <section className="probation" role="alert" aria-live="assertive" data-testid="probation">
      <p className="probation-ask">
        <strong>{t("probation.ask", { seconds: left })}</strong>
      </p>
      <p className="probation-why">{undoing ? t("probation.undoing") : t("probation.why")}</p>
      <div className="probation-actions">
        <button
          type="button"
          className="primary"
          disabled={busy !== ""}
          onClick={() => props.onAct("keep")}
        >
          {t("probation.keep")}
        </button>
        <button type="button" disabled={busy !== ""} onClick={() => props.onAct("undo")}>
          {t("probation.undo")}
        </button>
      </div>
    </section>
  );
}

/** The service undid an unconfirmed change: it says so until dismissed. */
function UndoneNotice(props: { notice: { code: string; message: string }; onDismiss(): void }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const { notice } = props;
  const text = serviceText({ code: notice.code, params: {} }, lang) ?? notice.message;
  return (
    <section className="probation probation-notice" role="status" data-testid="probation-notice">
      <p>{text}</p>
      <div className="probation-actions">
        <button type="button" onClick={props.onDismiss}>
          {t("probation.dismiss")}
        </button>
      </div>
    </section>
  );
}

export function ProbationBanner() {
  const t = useT();
  const { state, left, load } = useProbation();
  const [busy, setBusy] = useState<Busy>("");
  const [said, setSaid] = useState<{ text: string; kind: "ok" | "error" } | null>(null);

  const act = async (kind: "keep" | "undo") => {
    setBusy(kind);
    setSaid(null);
    try {
      await api(kind === "keep" ? "POST /system/confirm" : "POST /system/probation/revert");
      setSaid({ text: t(kind === "keep" ? "probation.kept" : "probation.undone"), kind: "ok" });
    } catch (err) {
      setSaid({ text: errorText(err, t), kind: "error" });
    } finally {
      setBusy("");
      await load();
    }
  };
  const dismiss = async () => {
    try {
      await api("POST /system/probation/dismiss");
    } finally {
      await load();
    }
  };

  if (state?.probation) return <Countdown left={left} busy={busy} onAct={(k) => void act(k)} />;
  if (state?.notice) return <UndoneNotice notice={state.notice} onDismiss={() => void dismiss()} />;
  if (said) {
    return (
      <p
        className={`alert alert-${said.kind} probation-said`}
        role={said.kind === "error" ? "alert" : "status"}
      >
        {said.text}
      </p>
    );
  }
  return null;
}
