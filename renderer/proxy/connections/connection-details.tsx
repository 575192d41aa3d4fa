import { useEffect, useRef } from "react";
import { formatBytes, formatDuration } from "../parts/format.js";
import { useT, type Key, type Translate } from "../i18n.js";
import { useApp } from "../store.js";
import type { Connection } from "../../../server/contract/proxy.js";
import { chainSteps, host, ruleName, stepName } from "./connection-text.js";

/** The core's metadata fields, in the order people look for them, with their names. */
const FIELDS: Array<[string, Key]> = [
  ["host", "conn.f.host"],
  ["sniffHost", "conn.f.sniffHost"],
  ["destinationIP", "conn.f.destinationIP"],
  ["destinationPort", "conn.f.destinationPort"],
  ["destinationGeoIP", "conn.f.destinationGeoIP"],
  ["destinationIPASN", "conn.f.destinationIPASN"],
  ["remoteDestination", "conn.f.remoteDestination"],
  ["sourceIP", "conn.f.sourceIP"],
  ["sourcePort", "conn.f.sourcePort"],
  ["sourceGeoIP", "conn.f.sourceGeoIP"],
  ["sourceIPASN", "conn.f.sourceIPASN"],
  ["network", "conn.f.network"],
  ["type", "conn.f.type"],
  ["inboundName", "conn.f.inboundName"],
  ["inboundIP", "conn.f.inboundIP"],
  ["inboundPort", "conn.f.inboundPort"],
  ["inboundUser", "conn.f.inboundUser"],
  ["dnsMode", "conn.f.dnsMode"],
  ["process", "conn.f.process"],
  ["processPath", "conn.f.processPath"],
  ["uid", "conn.f.uid"],
  ["specialProxy", "conn.f.specialProxy"],
  ["specialRules", "conn.f.specialRules"],
  ["dscp", "conn.f.dscp"],
];
const KNOWN = new Set(FIELDS.map(([k]) => k));

function shown(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(shown).filter(Boolean).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** The metadata as name and value, known fields first under their names, then any others. */
function metadataRows(c: Connection, t: Translate): Array<[string, string]> {
  const meta = c.metadata as Record<string, unknown>;
  const rows: Array<[string, string]> = [];
  for (const [key, label] of FIELDS) {
    const v = shown(meta[key]);
    if (v) rows.push([t(label), v]);
  }
  // Fields a newer core adds are shown under their own names rather than dropped.
  for (const [key, value] of Object.entries(meta)) {
    const v = shown(value);
    if (!KNOWN.has(key) && v) rows.push([key, v]);
  }
  return rows;
}

/** The heading takes the focus when a connection opens; Escape closes. */
function useDialogKeys(id: string, onClose: () => void) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, [id]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  return heading;
}

function Figures({ c, now }: { c: Connection; now: number }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const started = Date.parse(c.start);
  return (
    <dl className="facts conn-facts">
      <div>
        <dt>{t("conn.upload")}</dt>
        <dd>{formatBytes(c.upload)}</dd>
      </div>
      <div>
        <dt>{t("conn.download")}</dt>
        <dd>{formatBytes(c.download)}</dd>
      </div>
      <div>
        <dt>{t("conn.started")}</dt>
        <dd>
          {Number.isNaN(started)
            ? "—"
            : new Date(started).toLocaleString(lang, {
                dateStyle: "medium",
                timeStyle: "medium",
              })}
        </dd>
      </div>
      <div>
        <dt>{t("conn.age")}</dt>
        <dd>{Number.isNaN(started) ? "—" : formatDuration((now - started) / 1000, lang)}</dd>
      </div>
    </dl>
  );
}

function Chain({ c }: { c: Connection }) {
  const t = useT();
  return (
    <>
      <h3>{t("conn.chain")}</h3>
      <ol className="chain-steps" aria-label={t("conn.chain")}>
        {chainSteps(c).map((step, i) => (
          <li key={i}>
            <span className="chain-name">{stepName(step, t)}</span>
            {step.subscription ? (
              <span className="muted">
                {" "}
                {t("conn.fromSubscription", { name: step.subscription })}
              </span>
            ) : null}
          </li>
        ))}
      </ol>
    </>
  );
}

function RuleAndMetadata({ c }: { c: Connection }) {
  const t = useT();
  return (
    <>
      <h3>{t("conn.rule")}</h3>
      <p className="conn-rule" title={c.rule}>
        {c.rule ? ruleName(c, t) : "—"}
        {c.rulePayload ? <span className="mono"> {c.rulePayload}</span> : null}
      </p>
      <h3>{t("conn.metadata")}</h3>
      <dl className="conn-meta">
        {metadataRows(c, t).map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

/**
 * Everything the core says about one connection: where it goes, where it comes from, the
 * chain of groups and the node (with its subscription's name), the rule, the bytes and the
 * start. `ended` is set when the core no longer lists it (the last known figures stay).
 */
export function ConnectionDetails({
  connection: c,
  ended,
  now,
  onClose,
  onCloseConnection,
}: {
  connection: Connection;
  ended: boolean;
  now: number;
  onClose(): void;
  onCloseConnection(c: Connection): void;
}) {
  const t = useT();
  const heading = useDialogKeys(c.id, onClose);
  return (
    <aside className="conn-details" aria-labelledby="conn-details-title" role="dialog">
      <header className="conn-details-head">
        <h2 id="conn-details-title" ref={heading} tabIndex={-1}>
          {t("conn.detailsTitle")}
        </h2>
        <button type="button" onClick={onClose} aria-label={t("conn.detailsClose")}>
          ✕
        </button>
      </header>
      <p className="conn-details-host">{host(c) || "—"}</p>
      {ended ? (
        <p className="alert alert-info" role="status">
          {t("conn.ended")}
        </p>
      ) : null}
      <Figures c={c} now={now} />
      <Chain c={c} />
      <RuleAndMetadata c={c} />
      <div className="button-row">
        {!ended ? (
          <button type="button" className="danger" onClick={() => onCloseConnection(c)}>
            {t("conn.closeThis")}
          </button>
        ) : null}
        <button type="button" onClick={onClose}>
          {t("conn.detailsBack")}
        </button>
      </div>
    </aside>
  );
}
