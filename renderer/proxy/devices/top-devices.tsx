import { api } from "../api.js";
import { formatBytes } from "../parts/format.js";
import { HistoryChart } from "./history-chart.js";
import { useT } from "../i18n.js";
import { Alert, Card, Loading, useLoad } from "../parts/ui.js";
import { devicePath } from "./device-parts.js";
import "./styles-devices.css";

/** The dashboard's card: every device's traffic per hour over 24 hours, and the busiest ones. */
export function TopDevicesCard() {
  const t = useT();
  const view = useLoad(() => api("GET /traffic", { query: { range: "24h" } }), 60_000);
  const top = view.data?.devices ?? [];
  const most = Math.max(1, ...top.map((d) => d.upload + d.download));
  return (
    <Card title={t("dash.topTitle")} actions={<a href="#/devices">{t("dash.topAll")}</a>}>
      {view.error ? <Alert text={view.error} /> : null}
      {view.data ? (
        <>
          <HistoryChart
            points={view.data.points}
            bucketSeconds={view.data.bucketSeconds}
            range="24h"
          />
          {top.length === 0 ? (
            <p className="muted">{t("dash.topNone")}</p>
          ) : (
            <ol className="top-devices">
              {top.map((d) => (
                <li key={d.id}>
                  <a href={`#${devicePath(d.id)}`}>{d.name}</a>
                  <span className="top-bar" aria-hidden="true">
                    <span
                      className="top-bar-down"
                      style={{ width: `${(d.download / most) * 100}%` }}
                    />
                    <span className="top-bar-up" style={{ width: `${(d.upload / most) * 100}%` }} />
                  </span>
                  <span className="top-figures">
                    {t("dev.upDown", { up: formatBytes(d.upload), down: formatBytes(d.download) })}
                  </span>
                </li>
              ))}
            </ol>
          )}
        </>
      ) : view.loading ? (
        <Loading />
      ) : null}
    </Card>
  );
}
