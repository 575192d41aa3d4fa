import { useState } from "react";
import { Metrics, MetricsSchema } from "../../../server/contract/proxy.js";
import { formatBytes, formatRate } from "../parts/format.js";
import { useT } from "../i18n.js";
import { useEventStream, type StreamState } from "../sse.js";
import { Alert, Card } from "../parts/ui.js";
import { TrafficChart, type Sample } from "./traffic-chart.js";

/** How far back the chart's samples go (a little more than the two minutes it draws). */
const KEEP_MS = 130_000;

/** The live metrics from the service's event stream, and the samples the chart draws. */
function useTraffic() {
  const [samples, setSamples] = useState<Sample[]>([]);
  const [metrics, setMetrics] = useState<Metrics | null>(null);
  const [stream, setStream] = useState<StreamState>("connecting");
  useEventStream(
    "GET /events",
    {
      metrics: (raw) => {
        const read = MetricsSchema.safeParse(JSON.parse(raw));
        // An event of another shape (an older page) is skipped, never shown half-read.
        if (!read.success) return;
        const m = read.data;
        setMetrics(m);
        const at = Date.now();
        setSamples((prev) => [
          ...prev.filter((s) => s.at > at - KEEP_MS),
          { at, up: m.up, down: m.down },
        ]);
      },
    },
    setStream,
  );
  return { samples, metrics, stream };
}

/** The dashboard's traffic: the chart of the last two minutes, the rates and totals. */
export function TrafficCard() {
  const t = useT();
  const { samples, metrics, stream } = useTraffic();
  return (
    <Card title={t("dash.trafficTitle")}>
      <TrafficChart samples={samples} />
      <dl className="facts facts-row">
        <div>
          <dt>{t("dash.up")}</dt>
          <dd>{formatRate(metrics?.up ?? 0)}</dd>
        </div>
        <div>
          <dt>{t("dash.down")}</dt>
          <dd>{formatRate(metrics?.down ?? 0)}</dd>
        </div>
        <div>
          <dt>{t("dash.upTotal")}</dt>
          <dd>{formatBytes(metrics?.upTotal ?? 0)}</dd>
        </div>
        <div>
          <dt>{t("dash.downTotal")}</dt>
          <dd>{formatBytes(metrics?.downTotal ?? 0)}</dd>
        </div>
        <div>
          <dt>{t("dash.connections")}</dt>
          <dd data-testid="connection-count">{metrics?.connections ?? 0}</dd>
        </div>
      </dl>
      {stream === "error" ? <Alert text={t("dash.streamLost")} /> : null}
      {stream === "connecting" && samples.length > 0 ? (
        <Alert kind="info" text={t("dash.streamReconnecting")} />
      ) : null}
    </Card>
  );
}
