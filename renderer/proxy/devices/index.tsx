import { useState } from "react";
import { api } from "../api.js";
import { formatBytes } from "../parts/format.js";
import { useT } from "../i18n.js";
import { useRouteRest } from "../route.js";
import { Alert, Card, Loading, useLoad } from "../parts/ui.js";
import { DevicePage } from "./device.js";
import {
  DeviceName,
  macText,
  OnlineDot,
  PolicySelect,
  type DeviceControlProps,
} from "./device-parts.js";
import { ProxyOffNote, useProxyOff, type Said } from "./proxy-off.js";
import "./styles-devices.css";

/** The list follows the devices' traffic and comings and goings while it is open. */
const REFRESH_MS = 10_000;

function DeviceRow({ device, onSaved, proxyOff }: DeviceControlProps) {
  const t = useT();
  return (
    <li className="dev-row" aria-label={device.name} data-device={device.id}>
      <OnlineDot device={device} />
      <span className="dev-main">
        <DeviceName device={device} onSaved={onSaved} link />
        <span className="dev-sub muted">
          <span className="dev-ip">{device.ip ?? t("dev.notSeen")}</span>
          <span className="dev-mac">{macText(device, t)}</span>
        </span>
      </span>
      <span className="dev-today" title={t("dev.today")}>
        <span className="dev-col-label">{t("dev.today")}</span>{" "}
        {t("dev.upDown", {
          up: formatBytes(device.today.upload),
          down: formatBytes(device.today.download),
        })}
      </span>
      <PolicySelect device={device} onSaved={onSaved} proxyOff={proxyOff} />
    </li>
  );
}

function DeviceListScreen() {
  const t = useT();
  const list = useLoad(() => api("GET /devices"), REFRESH_MS);
  const proxyOff = useProxyOff(REFRESH_MS);
  const [said, setSaid] = useState<Said | null>(null);
  const onSaved = async (s: Said) => {
    setSaid(s);
    await list.reload();
  };
  return (
    <Card title={t("dev.listTitle")}>
      <p className="muted dev-hint">{t("dev.hint")}</p>
      {said ? <Alert kind={said.kind} text={said.text} /> : null}
      {list.error ? <Alert text={list.error} /> : null}
      {list.loading && !list.data ? <Loading /> : null}
      {list.data && list.data.length === 0 ? <p>{t("dev.none")}</p> : null}
      {list.data && list.data.length > 0 ? (
        <>
          {proxyOff ? <ProxyOffNote /> : null}
          <ul className="dev-list">
            {list.data.map((d) => (
              <DeviceRow key={d.id} device={d} onSaved={onSaved} proxyOff={proxyOff} />
            ))}
          </ul>
        </>
      ) : null}
    </Card>
  );
}

/** `#/devices`: the list; `#/devices/<id>`: one device's page. */
export function DevicesScreen() {
  const id = useRouteRest();
  return id ? <DevicePage id={id} /> : <DeviceListScreen />;
}
