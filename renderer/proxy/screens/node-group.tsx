import { useState } from "react";
import { latencyClass } from "../format.js";
import { useT } from "../i18n.js";
import type { NodeTestResults, NodeView } from "../types.js";

export interface Group {
  id: string;
  name: string;
  nodes: NodeView[];
}

function Latency({ node, result }: { node: NodeView; result?: { delay: number; error: string } }) {
  const t = useT();
  const failed = result ? result.error !== "" || result.delay <= 0 : node.alive === false;
  const delay = result ? result.delay : node.delay;
  const cls = latencyClass(delay, failed);
  const text = failed ? t("nodes.failed") : delay === null ? t("nodes.untested") : `${delay} ms`;
  return (
    <span className={`latency latency-${cls}`} title={result?.error || undefined}>
      {text}
    </span>
  );
}

/**
 * One subscription's nodes. A closed group renders no node rows at all, so a console with
 * tens of thousands of nodes stays quick: only the groups the operator opens cost anything.
 */
export function NodeGroup({
  group,
  startOpen,
  results,
  testing,
  busy,
  onTest,
  onChoose,
}: {
  group: Group;
  startOpen: boolean;
  results: NodeTestResults;
  testing: string;
  busy: boolean;
  onTest(key: string, ids: string[]): void;
  onChoose(id: string): void;
}) {
  const t = useT();
  const [open, setOpen] = useState(startOpen);
  return (
    <details className="group" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <span className="group-name">{group.name}</span>{" "}
        <span className="muted">{t("nodes.count", { n: group.nodes.length })}</span>
      </summary>
      {open ? (
        <>
          <div className="button-row">
            <button
              type="button"
              onClick={() =>
                onTest(
                  group.id,
                  group.nodes.map((n) => n.id),
                )
              }
              disabled={testing !== ""}
              aria-label={t("nodes.testGroupLabel", { name: group.name })}
            >
              {testing === group.id ? t("nodes.testing") : t("nodes.testGroup")}
            </button>
          </div>
          <ul className="nodes" aria-label={group.name}>
            {group.nodes.map((n) => (
              <li
                key={n.id}
                className={`node${n.selected ? " node-selected" : ""}`}
                aria-label={n.name}
              >
                <span className="node-name">{n.name}</span>
                <span className="muted">
                  {n.type}
                  {n.udp ? " · UDP" : ""}
                </span>
                <Latency node={n} result={results[n.id]} />
                {n.selected ? (
                  <span className="badge badge-good">{t("nodes.current")}</span>
                ) : (
                  <button
                    type="button"
                    onClick={() => onChoose(n.id)}
                    disabled={busy}
                    aria-label={t("nodes.useLabel", { name: n.name })}
                  >
                    {t("nodes.use")}
                  </button>
                )}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </details>
  );
}
