import { useState } from "react";
import { type Device, type DevicePolicy } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { CoreOutput, useCoreAction } from "../core/core-failure.js";
import { useT, type Translate } from "../i18n.js";
import { Alert } from "../parts/ui.js";
import { PROXY_OFF_ID, type Said } from "./proxy-off.js";

/** The parts of a device shown both in the list and on its page. */

export const POLICIES: readonly DevicePolicy[] = ["default", "direct", "proxy", "block"];

export function devicePath(id: string): string {
  return `/devices/${encodeURIComponent(id)}`;
}

export function policyWord(p: DevicePolicy, t: Translate): string {
  return t(`dev.policy.${p}`);
}

/** The online dot: green when seen in the last five minutes, with its words for readers. */
export function OnlineDot({ device }: { device: Device }) {
  const t = useT();
  const label = t(device.online ? "dev.onlineLabel" : "dev.offlineLabel", { name: device.name });
  return (
    <span
      className={`dev-dot${device.online ? " dev-dot-on" : ""}`}
      role="img"
      aria-label={label}
      title={label}
    />
  );
}

/** The device's name, and in place of it a one-field form while it is renamed. */
export function DeviceName({
  device,
  onSaved,
  link,
}: {
  device: Device;
  onSaved(said: Said): Promise<void>;
  link: boolean;
}) {
  const t = useT();
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState("");
  const action = useCoreAction();
  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    const name = value.trim();
    const ok = await action.run(() =>
      api("PUT /devices/:id", { params: { id: device.id }, body: { name } }),
    );
    if (!ok) return;
    setEditing(false);
    const text = t("dev.renamed", { name: name || device.discoveredName || device.ip || "" });
    await onSaved({ text, kind: "ok" });
  };
  if (editing) {
    const hintId = `dev-rename-hint-${device.id}`;
    const found = device.discoveredName ?? device.ip;
    return (
      <form className="dev-rename" onSubmit={(e) => void save(e)}>
        <input
          autoFocus
          value={value}
          maxLength={64}
          placeholder={t("dev.namePlaceholder")}
          aria-label={t("dev.nameLabel", { name: device.name })}
          aria-describedby={hintId}
          onChange={(e) => setValue(e.target.value)}
          onKeyDown={(e) => e.key === "Escape" && setEditing(false)}
        />
        <span className="dev-rename-hint muted" id={hintId}>
          {found ? t("dev.nameHint", { name: found }) : t("dev.nameHintNone")}
        </span>
        <button type="submit" className="primary" disabled={action.busy}>
          {t("dev.save")}
        </button>
        <button type="button" onClick={() => setEditing(false)}>
          {t("dev.cancel")}
        </button>
        {action.error ? <Alert text={action.error} /> : null}
      </form>
    );
  }
  return (
    <span className="dev-name">
      {link ? (
        <a href={`#${devicePath(device.id)}`} aria-label={t("dev.open", { name: device.name })}>
          {device.name}
        </a>
      ) : (
        <span>{device.name}</span>
      )}
      <button
        type="button"
        className="link-button"
        aria-label={t("dev.renameLabel", { name: device.name })}
        onClick={() => {
          setValue(device.name === device.ip ? "" : device.name);
          setEditing(true);
        }}
      >
        {t("dev.rename")}
      </button>
    </span>
  );
}

/** What a device's row and its policy control are given. */
export interface DeviceControlProps {
  device: Device;
  /** Called with what to say once a change was saved. */
  onSaved(said: Said): Promise<void>;
  /** The proxy is off: the core reads no policy until it is on. */
  proxyOff: boolean;
}

/**
 * The policy in one control: choosing another applies it to the core at once. While the proxy
 * is off the core reads no policy: the control is described by the page's note, a policy other
 * than the rules' says it is not in effect, and a change is confirmed with that caveat.
 */
export function PolicySelect({ device, onSaved, proxyOff }: DeviceControlProps) {
  const t = useT();
  const action = useCoreAction();
  const [choosing, setChoosing] = useState<DevicePolicy | null>(null);
  const choose = async (policy: DevicePolicy) => {
    setChoosing(policy);
    const ok = await action.run(() =>
      api("PUT /devices/:id", { params: { id: device.id }, body: { policy } }),
    );
    if (ok) {
      const words = { name: device.name, policy: policyWord(policy, t) };
      await onSaved(
        proxyOff
          ? { text: t("dev.policySavedOff", words), kind: "info" }
          : { text: t("dev.policySaved", words), kind: "ok" },
      );
    }
    setChoosing(null);
  };
  return (
    <span className="dev-policy">
      <select
        value={choosing ?? device.policy}
        disabled={action.busy}
        aria-label={t("dev.policyLabel", { name: device.name })}
        aria-describedby={proxyOff ? PROXY_OFF_ID : undefined}
        onChange={(e) => void choose(e.target.value as DevicePolicy)}
        data-policy={device.policy}
      >
        {POLICIES.map((p) => (
          <option key={p} value={p}>
            {policyWord(p, t)}
          </option>
        ))}
      </select>
      {proxyOff && device.policy !== "default" ? (
        <span className="dev-policy-idle">{t("dev.policyIdle")}</span>
      ) : null}
      {action.error ? <Alert text={action.error} /> : null}
      {action.output ? <CoreOutput text={action.output} t={t} /> : null}
    </span>
  );
}

/** MAC address and, when its prefix is registered, the maker. */
export function macText(d: Device, t: Translate): string {
  if (!d.mac) return t("dev.none.value");
  return d.vendor ? `${d.mac} · ${d.vendor}` : d.mac;
}
