import { useCallback, useEffect, useState } from "react";
import type { Lang } from "../../shared/lang.js";
import { useT, type Translate } from "../i18n.js";
import { useApp } from "../store.js";
import type { VerifyStatus } from "../../../server/contract/parcel-verify.js";
import { useFilters } from "./filters.js";
import { adminApi } from "./session.js";
import { Alert, Card, formatCount, formatTime, useAction, useErrorText } from "./ui.js";
import { verifyDict } from "./verify-i18n.js";

type VT = Translate<keyof (typeof verifyDict)["en"]>;
type Found = VerifyStatus["found"][number];

/** While a check runs the card asks how it stands this often. */
const POLL_MS = 1000;

/** How long a run took, in words. */
function tookText(seconds: number, t: VT, lang: Lang): string {
  if (seconds < 1) return t("took.short");
  if (seconds < 60) return t("took.s", { n: formatCount(seconds, lang) });
  if (seconds < 3600) return t("took.m", { n: formatCount(Math.round(seconds / 60), lang) });
  return t("took.h", { h: Math.floor(seconds / 3600), m: Math.round((seconds % 3600) / 60) });
}

/** "a.pdf, b.pdf" — the files whose content a damaged copy was, as people know them. */
function namesText(f: Found, files: number, t: VT): string {
  if (f.names.length === 0) return t("someFile");
  const shown = f.names.join(", ");
  return files > f.names.length ? t("moreNames", { names: shown }) : shown;
}

function outcomeText(f: Found, t: VT, lang: Lang): string {
  if (f.outcome !== "quarantined") return t(`outcome.${f.outcome}`);
  if (f.parcels === 0) return t("outcome.orphan");
  return t("outcome.quarantined", { n: formatCount(f.parcels, lang) });
}

/** One damaged copy; `files` is how many files' content it was (the names are the first few). */
function Finding({ f, files }: { f: Found; files: number }) {
  const t = useT(verifyDict);
  const lang = useApp((s) => s.lang);
  const show = () => useFilters.getState().setParcels({ q: f.names[0] ?? "", state: "" });
  return (
    <li data-testid="verify-finding">
      <p className="adm-problem-message">
        <strong>{namesText(f, files, t)}</strong>
        {t("colon")}
        {t(`reason.${f.reason}`)}
      </p>
      <p className="muted adm-problem-request">{outcomeText(f, t, lang)}</p>
      {f.names.length > 0 && f.outcome === "quarantined" ? (
        <a href="#/admin/parcels" onClick={show}>
          {t("findParcels")}
        </a>
      ) : null}
    </li>
  );
}

function Progress({ s }: { s: VerifyStatus }) {
  const t = useT(verifyDict);
  const lang = useApp((st) => st.lang);
  const percent = s.total > 0 ? Math.round((s.checked / s.total) * 1000) / 10 : 0;
  const text = t("progress", {
    checked: formatCount(s.checked, lang),
    n: formatCount(s.total, lang),
  });
  return (
    <div className="adm-usage" data-testid="verify-progress">
      <div className="adm-usage-head">
        <span>{t("progressLabel")}</span>
        <span className="adm-usage-text">{text}</span>
      </div>
      <div
        className="adm-bar adm-bar-good"
        role="progressbar"
        aria-label={t("progressLabel")}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent} % · ${text}`}
      >
        <span style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}

/** The last run: when it ended, how many stored files, how long it took. */
function LastRun({ s }: { s: VerifyStatus }) {
  const t = useT(verifyDict);
  const lang = useApp((st) => st.lang);
  if (s.started_at === null) return <p className="muted adm-note">{t("never")}</p>;
  if (s.finished_at === null)
    return (
      <p className="adm-alert" data-testid="verify-interrupted">
        {t("interrupted", {
          time: formatTime(s.started_at, lang),
          checked: formatCount(s.checked, lang),
          total: formatCount(s.total, lang),
        })}
      </p>
    );
  return (
    <dl className="adm-facts adm-facts-small" data-testid="verify-last">
      <div>
        <dt>{t("last")}</dt>
        <dd>{formatTime(s.finished_at, lang)}</dd>
      </div>
      <div>
        <dt>{t("checkedLabel")}</dt>
        <dd>{formatCount(s.checked, lang)}</dd>
      </div>
      <div>
        <dt>{t("tookLabel")}</dt>
        <dd>{tookText(s.finished_at - s.started_at, t, lang)}</dd>
      </div>
    </dl>
  );
}

/**
 * The Overview's card of the check of every stored file (`GET/POST /admin/verify`): its
 * progress while it runs (asked every second), the last run, what it found and what became of
 * each damaged copy, and "Verify now". `onFinished` is called when a check it saw running ends.
 */
export function VerifyCard({ tick, onFinished }: { tick: number; onFinished(): void }) {
  const t = useT(verifyDict);
  const lang = useApp((s) => s.lang);
  const describe = useErrorText();
  const [status, setStatus] = useState<VerifyStatus | null>(null);
  const [error, setError] = useState("");
  const start = useAction();
  const load = useCallback(
    async (signal?: AbortSignal) => {
      try {
        setStatus(await adminApi("GET /admin/verify", { signal }));
        setError("");
      } catch (err) {
        if (!signal?.aborted) setError(describe(err));
      }
    },
    [describe],
  );
  useEffect(() => {
    const ctl = new AbortController();
    void load(ctl.signal);
    return () => ctl.abort();
  }, [load, tick]);
  const running = status?.running ?? false;
  const [wasRunning, setWasRunning] = useState(false);
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(timer);
  }, [running, load]);
  useEffect(() => {
    // A check that just ended may have quarantined copies: the overview's figures and the
    // recent problems are read again.
    if (wasRunning && !running) onFinished();
    setWasRunning(running);
  }, [running, wasRunning, onFinished]);
  const run = () =>
    void start.run(async () => {
      setStatus(await adminApi("POST /admin/verify"));
    });
  const s = status;
  const done = s !== null && !s.running && s.finished_at !== null;
  return (
    <Card title={t("title")} className="adm-verify">
      <p className="muted adm-note">{t("intro")}</p>
      <div className="adm-toolbar">
        <button type="button" onClick={run} disabled={start.busy || running}>
          {running ? t("running") : t("run")}
        </button>
      </div>
      <Alert text={start.error || error} />
      {s ? (
        <>
          {s.running ? <Progress s={s} /> : <LastRun s={s} />}
          {done && s.found.length === 0 ? (
            <p className="adm-alert adm-alert-ok" role="status" data-testid="verify-clean">
              {t("allGood")}
            </p>
          ) : null}
          {s.found.length > 0 ? (
            <div role="status" data-testid="verify-found">
              <h3 className="adm-verify-head">
                {t("foundHead", { n: formatCount(s.found.length, lang) })}
              </h3>
              <ul className="adm-problem-list">
                {s.found.map((f) => (
                  <Finding
                    key={f.sha256}
                    f={f}
                    files={s.bad.find((b) => b.sha256 === f.sha256)?.files.length ?? 0}
                  />
                ))}
              </ul>
            </div>
          ) : null}
          <p className="muted adm-note">{t("next", { time: formatTime(s.next_at, lang) })}</p>
        </>
      ) : null}
    </Card>
  );
}
