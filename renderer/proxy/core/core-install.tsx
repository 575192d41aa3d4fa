import { Fragment, useCallback, useEffect, useRef, useState } from "react";
import { formatBytes } from "../../shared/format.js";
import { CoreInfo } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { CoreOutput, useCoreAction } from "./core-failure.js";
import { useT, type Key, type Translate } from "../i18n.js";
import { ConfirmBox } from "../parts/confirm-box.js";
import { Alert, Card } from "../parts/ui.js";
import "./styles-core-install.css";

const POLL_MS = 400;

/**
 * The core's facts, asked again every 400 ms while an install runs (this page's or another's),
 * so the download's progress moves.
 */
export function useCoreInfo(active: boolean) {
  const [info, setInfo] = useState<CoreInfo | null>(null);
  const alive = useRef(true);
  const reload = useCallback(async () => {
    try {
      const next = await api("GET /system/core");
      if (alive.current) setInfo(next);
    } catch {
      // The card keeps what it showed; the action's own error says what went wrong.
    }
  }, []);
  const polling = active || info?.installing === true;
  useEffect(() => {
    alive.current = true;
    void reload();
    if (!polling) return () => void (alive.current = false);
    const timer = setInterval(() => void reload(), POLL_MS);
    return () => {
      alive.current = false;
      clearInterval(timer);
    };
  }, [reload, polling]);
  return { info, reload };
}

/** What an install is doing now, in words ("Downloading… 1.2 MB of 9.8 MB (12 %)"). */
function phaseText(p: CoreInfo["progress"], t: Translate): string {
  if (!p) return t("install.phase.release");
  if (p.phase === "download" && p.bytesTotal) {
    return t("install.phase.downloadOf", {
      done: formatBytes(p.bytesDone),
      total: formatBytes(p.bytesTotal),
      percent: Math.min(100, Math.floor((p.bytesDone / p.bytesTotal) * 100)),
    });
  }
  return t(`install.phase.${p.phase}` as Key);
}

/** A progress bar with the phase beside it; while unknown, the bar runs without a value. */
export function InstallProgress({ info, starting }: { info: CoreInfo | null; starting?: boolean }) {
  const t = useT();
  const p = info?.progress ?? null;
  const fraction =
    p?.phase === "download" && p.bytesTotal ? Math.min(1, p.bytesDone / p.bytesTotal) : null;
  const text = starting ? t("install.phase.start") : phaseText(p, t);
  return (
    <div className="install-progress" data-testid="install-progress">
      <progress
        aria-label={t("install.progressLabel")}
        max={1}
        {...(fraction === null ? {} : { value: fraction })}
      />
      <p role="status">{text}</p>
    </div>
  );
}

/**
 * The dashboard's "no core" state: one button that installs the core from its release and
 * starts it, with the download's progress while it runs.
 */
export function InstallCorePanel({ onDone }: { onDone: () => void }) {
  const t = useT();
  const action = useCoreAction();
  const [starting, setStarting] = useState(false);
  const { info, reload } = useCoreInfo(action.busy);
  const install = () =>
    void action
      .run(
        async () => {
          const done = await api("POST /system/core/install", { body: {} });
          setStarting(true);
          try {
            // A core that already runs (started elsewhere) was restarted by the install.
            const status = await api("GET /status");
            if (!status.coreOnline)
              await api("POST /system/service", { body: { action: "start" } });
          } finally {
            setStarting(false);
          }
          return done;
        },
        (done) => t("install.installedStarted", { version: done.version }),
      )
      .then(() => {
        void reload();
        onDone();
      });
  const busy = action.busy || info?.installing === true;
  if (action.done) {
    return (
      <section className="install-panel install-panel-done" aria-label={t("install.cardTitle")}>
        <Alert kind="ok" text={action.done} />
      </section>
    );
  }
  return (
    <section className="install-panel" aria-labelledby="install-core-title">
      <h3 id="install-core-title">{t("install.noCoreTitle")}</h3>
      <p className="muted">{t("install.noCoreHint")}</p>
      <button type="button" className="primary" onClick={install} disabled={busy}>
        {t("install.installAndStart")}
      </button>
      {busy ? <InstallProgress info={info} starting={starting} /> : null}
      <Alert text={action.error} />
      <CoreOutput text={action.output} t={t} />
    </section>
  );
}

/**
 * The install panel for as long as this page shows the dashboard: it appears when no core is
 * installed, and stays after the install so its notice (installed and running) can be read.
 */
export function NoCoreInstall({
  installed,
  onDone,
}: {
  installed: boolean | undefined;
  onDone: () => void;
}) {
  const [shown, setShown] = useState(false);
  if (installed === false && !shown) setShown(true);
  return shown ? <InstallCorePanel onDone={onDone} /> : null;
}

function sourceText(info: CoreInfo | null, t: Translate): string {
  return t(`install.source.${info?.source ?? "none"}` as Key);
}

/**
 * The System screen's core program: version, where it comes from, the previous version, an
 * install of the latest release, and a confirmed rollback.
 */
/**
 * A file path that may break onto a new line only after a separator (a folder's name is never
 * cut in two); a name longer than the line scrolls inside its box instead.
 */
function PathText({ path }: { path: string }) {
  const parts = path.split(/(?<=[/\\])/);
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          <span className="path-part">{part}</span>
          {i < parts.length - 1 ? <wbr /> : null}
        </Fragment>
      ))}
    </>
  );
}

/** The program's version, where it comes from, its file, and the version kept to go back to. */
function ProgramFacts({ info }: { info: CoreInfo | null }) {
  const t = useT();
  return (
    <dl className="facts" data-testid="core-program">
      <div>
        <dt>{t("install.version")}</dt>
        <dd data-testid="core-program-version">{info?.version ?? "—"}</dd>
      </div>
      <div>
        <dt>{t("install.source")}</dt>
        <dd data-testid="core-program-source">{sourceText(info, t)}</dd>
      </div>
      {info?.path ? (
        <div className="facts-wide">
          <dt>{t("install.location")}</dt>
          <dd>
            <code className="install-path" data-testid="core-program-path">
              <PathText path={info.path} />
            </code>
          </dd>
        </div>
      ) : null}
      <div>
        <dt>{t("install.previous")}</dt>
        <dd data-testid="core-program-previous">{info?.previousVersion ?? t("install.none")}</dd>
      </div>
    </dl>
  );
}

/** Going back to the previous core asks first, saying which version replaces which. */
function RollbackAsk(props: { previous: string; current: string; onYes(): void; onNo(): void }) {
  const t = useT();
  return (
    <ConfirmBox
      className="install-confirm"
      label={t("install.rollbackAskLabel")}
      question={t("install.rollbackAsk", { previous: props.previous, current: props.current })}
      yes={t("install.rollbackYes")}
      onYes={props.onYes}
      onNo={props.onNo}
    />
  );
}

export function CoreProgramCard({ onChanged }: { onChanged?: () => void }) {
  const t = useT();
  const action = useCoreAction();
  const { info, reload } = useCoreInfo(action.busy);
  const [asking, setAsking] = useState(false);
  const [cancelled, setCancelled] = useState(false);
  const after = () => {
    void reload();
    onChanged?.();
  };
  const install = () => {
    setCancelled(false);
    void action
      .run(
        () => api("POST /system/core/install", { body: {} }),
        (done) => t("install.installed", { version: done.version }),
      )
      .then(after);
  };
  const rollback = () => {
    setAsking(false);
    void action
      .run(
        () => api("POST /system/core/rollback", { body: {} }),
        (done) => t("install.rolledBack", { version: done.version || "—" }),
      )
      .then(after);
  };
  const ask = () => {
    action.clear();
    setCancelled(false);
    setAsking(true);
  };
  const configured = info?.source === "configured";
  const busy = action.busy || info?.installing === true;
  return (
    <Card title={t("install.cardTitle")}>
      <ProgramFacts info={info} />
      <div className="button-row">
        <button type="button" onClick={install} disabled={busy || configured}>
          {info?.installed ? t("install.update") : t("install.install")}
        </button>
        {info?.previousVersion && !configured ? (
          <button type="button" onClick={ask} disabled={busy || asking}>
            {t("install.rollback", { version: info.previousVersion })}
          </button>
        ) : null}
      </div>
      <p className="muted">{configured ? t("install.configuredHint") : t("install.updateHint")}</p>
      {asking && info?.previousVersion ? (
        <RollbackAsk
          previous={info.previousVersion}
          current={info.version ?? "—"}
          onYes={rollback}
          onNo={() => (setAsking(false), setCancelled(true))}
        />
      ) : null}
      {busy ? <InstallProgress info={info} /> : null}
      <Alert kind="info" text={cancelled ? t("install.rollbackCancelled") : ""} />
      <Alert text={action.error} />
      <CoreOutput text={action.output} t={t} />
      <Alert kind="ok" text={action.done} />
    </Card>
  );
}
