import { useState } from "react";
import { UpdateReport } from "../../../server/contract/proxy.js";
import { ApiError, api } from "../api.js";
import { PasswordForm } from "../auth/auth.js";
import { formatDateTime } from "../parts/format.js";
import { useT, type Translate } from "../i18n.js";
import { useApp } from "../store.js";
import { Alert, Card, errorText, useAction, useLoad } from "../parts/ui.js";
import { ListenProblems } from "../core/listen-problems.js";
import { BackupCard } from "./backup-card.js";
import { ConnectivityCard } from "./connectivity.js";
import { ServiceButtons } from "../dashboard/index.js";
import { CoreProgramCard } from "../core/core-install.js";
import { GeodataCard } from "../core/geodata.js";

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
              setInfo(await api("GET /system/updates"));
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

/** Start/stop, and the controller port (fixed at start-up, so shown with how to change it). */
function ServiceCard() {
  const t = useT();
  const status = useLoad(() => api("GET /status"));
  const port = status.data?.controllerPort;
  return (
    <Card title={t("sys.serviceTitle")}>
      <ListenProblems status={status.data} t={t} />
      <ServiceButtons
        onDone={() => void status.reload()}
        online={status.data?.coreOnline}
        started={status.data?.coreStarted}
        installed={status.data?.coreInstalled}
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
