import type { Translate } from "../i18n.js";
import type { Status } from "../../../server/contract/proxy.js";
import "./styles-listen-problems.css";

/**
 * The ports the running core could not listen on because another program holds them, each
 * once (the loopback and LAN addresses, or DNS over UDP and TCP, may share one port).
 */
export function heldPorts(s: Status | null | undefined): number[] {
  if (!s?.coreOnline) return [];
  return [...new Set((s.listenProblems ?? []).map((p) => p.port))].sort((a, b) => a - b);
}

/**
 * Says that the core runs but takes no connections on a held port: amber (it is not down, and
 * it is not fine either), with the way to the Settings where another port is chosen.
 */
export function ListenProblems({ status, t }: { status: Status | null; t: Translate }) {
  const ports = heldPorts(status);
  if (ports.length === 0) return null;
  return (
    <div className="alert alert-warn listen-problems" role="status" data-testid="listen-problems">
      {ports.map((port) => (
        <p key={port}>{t("dash.listenPortInUse", { port })}</p>
      ))}
      <a className="button" href="#/settings">
        {t("dash.openSettings")}
      </a>
    </div>
  );
}
