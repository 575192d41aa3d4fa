import { useRef, useState } from "react";
import { Status, UpdateReport } from "../../../server/contract/proxy.js";
import { ApiError, call, request, send } from "../api.js";
import { PasswordForm } from "../auth.js";
import { formatDateTime } from "../format.js";
import { useT, type Translate } from "../i18n.js";
import { useApp } from "../store.js";
import { Alert, Card, errorText, useAction, useLoad } from "../ui.js";
import { ListenProblems } from "../listen-problems.js";
import { ConnectivityCard } from "./connectivity.js";
import { ServiceButtons } from "./dashboard.js";
import { CoreProgramCard } from "../core-install.js";
import { GeodataCard } from "../geodata.js";

/** One sentence for a failed check: the service's own (by its code) or "failed: <why>". */
function updateFailure(err: unknown, t: Translate): string {
  if (err instanceof ApiError && err.code.startsWith("updates.")) return errorText(err, t);
  return t("sys.updateFailed", { error: errorText(err, t) });
}

function UpdatesCard() {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const [info, setInfo] = useState<UpdateReport | null>(null);
  const check = useAction();
  return (
    <Card title={t("sys.updatesTitle")}>
      <button
        type="button"
        onClick={() =>
          void check.run(async () => {
            try {
              setInfo(await call(UpdateReport, "GET", "/system/updates"));
            } catch (err) {
              setInfo(null);
              throw new Error(updateFailure(err, t));
            }
          })
        }
        disabled={check.busy}
      >
        {check.busy ? t("common.working") : t("sys.checkUpdates")}
      </button>
      <Alert text={check.error} />
      {info ? (
        <dl className="facts" role="status">
          <div>
            <dt>{t("sys.current")}</dt>
            <dd>{info.current || "—"}</dd>
          </div>
          <div>
            <dt>{t("sys.latest")}</dt>
            <dd>{info.latest || "—"}</dd>
          </div>
          <div>
            <dt>{t("sys.updateStatus")}</dt>
            <dd>
              {info.status === "latest"
                ? t("sys.upToDate")
                : info.status === "outdated"
                  ? t("sys.outdated")
                  : t("sys.cannotCompare")}
              {info.releaseURL ? (
                <>
                  {" "}
                  <a href={info.releaseURL} target="_blank" rel="noreferrer noopener">
                    {t("sys.releaseNotes")}
                  </a>
                </>
              ) : null}
            </dd>
          </div>
          <div>
            <dt>{t("sys.checkedAt")}</dt>
            <dd>{formatDateTime(info.checkedAt, lang)}</dd>
          </div>
        </dl>
      ) : null}
    </Card>
  );
}

function fileName(disposition: string | null): string {
  const m = disposition?.match(/filename="?([^";]+)"?/i);
  return m ? m[1] : "gatehouse-proxy-backup.json";
}

function BackupCard() {
  const t = useT();
  const download = useAction();
  const restore = useAction();
  const input = useRef<HTMLInputElement>(null);
  // A chosen backup waits here until the person confirms that it replaces everything.
  const [pending, setPending] = useState<File | null>(null);
  const [cancelled, setCancelled] = useState(false);
  // One notice at a time: an earlier one would sit beside the answer to this action.
  const forget = () => {
    download.clear();
    restore.clear();
    setCancelled(false);
    setPending(null);
  };
  const choose = (file: File) => {
    forget();
    setPending(file);
    // Emptied at once, so the same file chosen again is offered again.
    if (input.current) input.current.value = "";
  };
  const dismiss = () => {
    setPending(null);
    setCancelled(true);
  };
  const confirm = () => {
    const file = pending;
    setPending(null);
    if (file) void upload(file);
  };

  const save = () => {
    forget();
    return download.run(async () => {
      const res = await request("GET", "/system/backup");
      const blob = await res.blob();
      const url = URL.createObjectURL(blob);
      const a = document.createElement("a");
      a.href = url;
      a.download = fileName(res.headers.get("Content-Disposition"));
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    }, t("sys.backupSaved"));
  };

  const upload = (file: File) =>
    restore.run(async () => {
      let body: unknown;
      try {
        body = JSON.parse(await file.text());
      } catch {
        throw new Error(t("sys.restoreNotJson"));
      }
      await send("POST", "/system/restore", body);
    }, t("sys.restored"));

  return (
    <Card title={t("sys.backupTitle")}>
      <p className="muted">{t("sys.backupHint")}</p>
      <div className="button-row">
        <button type="button" onClick={() => void save()} disabled={download.busy}>
          {t("sys.download")}
        </button>
        <label className="button">
          {t("sys.restore")}
          <input
            ref={input}
            type="file"
            accept="application/json,.json"
            className="sr-only"
            data-testid="restore-input"
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file) choose(file);
            }}
          />
        </label>
      </div>
      {pending ? (
        <div className="confirm-box" role="group" aria-label={t("sys.restoreAskLabel")}>
          <p>{t("sys.restoreAsk", { file: pending.name })}</p>
          <div className="button-row">
            <button type="button" className="danger" onClick={confirm}>
              {t("sys.restoreYes")}
            </button>
            <button type="button" onClick={dismiss}>
              {t("common.cancel")}
            </button>
          </div>
        </div>
      ) : null}
      <Alert kind="info" text={cancelled ? t("sys.restoreCancelled") : ""} />
      <Alert text={download.error} />
      <Alert kind="ok" text={download.done} />
      <Alert text={restore.error ? t("sys.restoreFailed", { error: restore.error }) : ""} />
      <Alert kind="ok" text={restore.done} />
    </Card>
  );
}

/** Start/stop, and the controller port (fixed at start-up, so shown with how to change it). */
function ServiceCard() {
  const t = useT();
  const status = useLoad(() => call(Status, "GET", "/status"));
  const port = status.data?.controllerPort;
  return (
    <Card title={t("sys.serviceTitle")}>
      <ListenProblems status={status.data} t={t} />
      <ServiceButtons
        onDone={() => void status.reload()}
        online={status.data?.coreOnline}
        started={status.data?.coreStarted}
      />
      <dl className="facts">
        <div>
          <dt>{t("sys.controllerPort")}</dt>
          <dd data-testid="controller-port">{port ?? "—"}</dd>
        </div>
      </dl>
      <p className="muted">{t("sys.controllerPortHint")}</p>
    </Card>
  );
}

export function SystemScreen() {
  const t = useT();
  return (
    <div className="grid">
      <ServiceCard />
      <CoreProgramCard />
      <GeodataCard />
      <ConnectivityCard />
      <UpdatesCard />
      <BackupCard />
      <Card title={t("sys.passwordTitle")}>
        <PasswordForm />
      </Card>
    </div>
  );
}
