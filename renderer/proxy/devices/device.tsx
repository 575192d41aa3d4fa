import { useEffect, useState } from "react";
import { TRAFFIC_RANGES, type Device, type TrafficRange } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { CoreOutput, useCoreAction } from "../core/core-failure.js";
import { formatDateTime } from "../parts/format.js";
import { HistoryChart } from "./history-chart.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { Alert, Card, Loading, useLoad } from "../parts/ui.js";
import { DeviceName, macText, OnlineDot, PolicySelect } from "./device-parts.js";
import { ProxyOffNote, useProxyOff, type Said } from "./proxy-off.js";

/** The chart's period, as three buttons (one pressed). */
export function RangePicker({
  range,
  onChange,
}: {
  range: TrafficRange;
  onChange(r: TrafficRange): void;
}) {
  const t = useT();
  return (
    <div className="range-picker" role="group" aria-label={t("dev.rangeLabel")}>
      {TRAFFIC_RANGES.map((r) => (
        <button key={r} type="button" aria-pressed={r === range} onClick={() => onChange(r)}>
          {t(`dev.range.${r}`)}
        </button>
      ))}
    </div>
  );
}

function ForgetButton({ id, name }: { id: string; name: string }) {
  const t = useT();
  const [asking, setAsking] = useState(false);
  const action = useCoreAction();
  const forget = async () => {
    const ok = await action.run(() => api("DELETE /devices/:id", { params: { id } }));
    if (ok) window.location.hash = "#/devices";
  };
  return (
    <div className="dev-forget">
      {asking ? (
        <>
          <p>{t("dev.forgetAsk", { name })}</p>
          <div className="button-row">
            <button
              type="button"
              className="danger"
              disabled={action.busy}
              onClick={() => void forget()}
            >
              {t("dev.forgetYes")}
            </button>
            <button type="button" onClick={() => setAsking(false)}>
              {t("dev.cancel")}
            </button>
          </div>
        </>
      ) : (
        <button type="button" onClick={() => setAsking(true)}>
          {t("dev.forget")}
        </button>
      )}
      {action.error ? <Alert text={action.error} /> : null}
      {action.output ? <CoreOutput text={action.output} t={t} /> : null}
    </div>
  );
}

/** Where the device is, what it is, and when it was seen. */
function DeviceFacts({ device }: { device: Device }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const when = (iso: string | null) => (iso ? formatDateTime(iso, lang) : t("dev.notSeen"));
  return (
    <dl className="facts dev-facts">
      <div>
        <dt>{t("dev.addresses")}</dt>
        <dd>{device.addresses.join(", ") || t("dev.notSeen")}</dd>
      </div>
      <div>
        <dt>{t("dev.mac")}</dt>
        <dd>{macText(device, t)}</dd>
      </div>
      <div>
        <dt>{t("dev.discoveredName")}</dt>
        <dd>{device.discoveredName ?? t("dev.none.value")}</dd>
      </div>
      <div>
        <dt>{t("dev.firstSeen")}</dt>
        <dd>{when(device.firstSeen)}</dd>
      </div>
      <div>
        <dt>{t("dev.lastSeen")}</dt>
        <dd>{when(device.lastSeen)}</dd>
      </div>
    </dl>
  );
}

/** `#/devices/<id>`: one device, its details, policy and traffic chart. */
export function DevicePage({ id }: { id: string }) {
  const t = useT();
  const [range, setRange] = useState<TrafficRange>("24h");
  const [said, setSaid] = useState<Said | null>(null);
  const list = useLoad(() => api("GET /devices"), 10_000);
  const proxyOff = useProxyOff(10_000);
  const traffic = useLoad(() => api("GET /traffic", { query: { range, device: id } }), 30_000);
  const { reload: reloadTraffic } = traffic;
  // Another period: read it now rather than at the next refresh.
  useEffect(() => void reloadTraffic(), [range, reloadTraffic]);
  const device = list.data?.find((d) => d.id === id);
  const onSaved = async (s: Said) => {
    setSaid(s);
    await list.reload();
  };
  const back = (
    <a href="#/devices" className="dev-back">
      ← {t("dev.back")}
    </a>
  );
  if (!device) {
    return (
      <Card title={t("dev.oneTitle")}>
        {back}
        {list.error ? <Alert text={list.error} /> : null}
        {list.loading ? <Loading /> : <Alert text={t("dev.unknown")} />}
      </Card>
    );
  }
  return (
    <div className="grid">
      <Card title={device.name}>
        {back}
        {said ? <Alert kind={said.kind} text={said.text} /> : null}
        <div className="dev-head">
          <OnlineDot device={device} />
          <DeviceName device={device} onSaved={onSaved} link={false} />
          <PolicySelect device={device} onSaved={onSaved} proxyOff={proxyOff} />
        </div>
        {proxyOff ? <ProxyOffNote /> : null}
        <DeviceFacts device={device} />
        <ForgetButton id={device.id} name={device.name} />
      </Card>
      <Card title={t("dev.traffic")} actions={<RangePicker range={range} onChange={setRange} />}>
        {traffic.error ? <Alert text={traffic.error} /> : null}
        {traffic.data ? (
          <HistoryChart
            points={traffic.data.points}
            bucketSeconds={traffic.data.bucketSeconds}
            range={traffic.data.range}
          />
        ) : (
          <Loading />
        )}
      </Card>
    </div>
  );
}
