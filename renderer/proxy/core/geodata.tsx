import { Status } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { formatBytes, formatDateTime } from "../parts/format.js";
import type { Translate } from "../i18n.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import type { Subscription } from "../../../server/contract/proxy.js";
import { Alert, Card, useAction, useLoad } from "../parts/ui.js";
import "./styles-listen-problems.css";

/** "geoip.metadb and geosite.dat" / "geoip.metadb 和 geosite.dat" */
function fileList(names: string[], lang: string): string {
  if (names.length < 2) return names.join("");
  const and = lang === "zh-CN" ? " 和 " : " and ";
  return `${names.slice(0, -1).join(", ")}${and}${names[names.length - 1]}`;
}

/**
 * Says that a start would be refused because geodata is missing (and how to get it); nothing
 * when the files are there or shipped with the app.
 */
export function GeodataMissing({ status, t }: { status: Status | null; t: Translate }) {
  const lang = useApp((s) => s.lang);
  const missing = status?.geodataMissing ?? [];
  if (missing.length === 0) return null;
  return (
    <p className="alert alert-warn" role="status" data-testid="geodata-missing">
      {t("geodata.missing", { files: fileList(missing, lang) })}
    </p>
  );
}

/** The subscriptions marked stale, by name, in one sentence (nothing when none is). */
export function StaleSubscriptions({ subs, t }: { subs: Subscription[] | null; t: Translate }) {
  const stale = (subs ?? []).filter((s) => s.stale && s.enabled);
  if (stale.length === 0) return null;
  return (
    <p className="alert alert-warn" role="status" data-testid="stale-subscriptions">
      {t("dash.staleSubs", { names: stale.map((s) => s.name).join(", ") })}{" "}
      <a href="#/subscriptions">{t("nav.subscriptions")}</a>
    </p>
  );
}

/** The System screen's geodata card: the files in use and the update button. */
export function GeodataCard({ onUpdated }: { onUpdated?: () => void }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const core = useLoad(() => api("GET /system/core"));
  const status = useLoad(() => api("GET /status"));
  const update = useAction();
  const files = core.data?.geodata ?? [];
  const run = () =>
    update.run(
      async () => {
        const r = await api("POST /system/geodata/update", { body: {} });
        await Promise.all([core.reload(), status.reload()]);
        onUpdated?.();
        return r;
      },
      (r) =>
        t("geodata.updated", {
          files: fileList(
            r.files.map((f) => f.name),
            lang,
          ),
        }),
    );
  return (
    <Card title={t("geodata.title")}>
      <p className="muted">{t("geodata.hint")}</p>
      <GeodataMissing status={status.data} t={t} />
      <dl className="facts">
        <div>
          <dt>{t("geodata.files")}</dt>
          <dd data-testid="geodata-files">
            {files.length === 0
              ? t("geodata.none")
              : files.map((f) => (
                  <span key={f.name} className="geodata-file">
                    {f.name} ({formatBytes(f.size)}, {formatDateTime(f.updatedAt, lang)})
                    <br />
                  </span>
                ))}
          </dd>
        </div>
      </dl>
      <div className="button-row">
        <button type="button" onClick={() => void run()} disabled={update.busy}>
          {update.busy ? t("common.working") : t("geodata.update")}
        </button>
      </div>
      <Alert text={update.error} />
      <Alert kind="ok" text={update.done} />
    </Card>
  );
}
