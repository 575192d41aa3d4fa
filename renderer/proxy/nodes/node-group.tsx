import { useState } from "react";
import { latencyClass, type LatencyClass } from "../parts/format.js";
import { useT, type Key } from "../i18n.js";
import type { NodeTestResults, NodeView } from "../../../server/contract/proxy.js";
import { delayOf, sortNodes, type NodeSort } from "./node-order.js";

export interface Group {
  id: string;
  name: string;
  nodes: NodeView[];
}

/** Words for each colour, so the colour is never the only sign (legend and tooltips). */
export const LATENCY_WORDS: Record<LatencyClass, Key> = {
  good: "nodes.fast",
  medium: "nodes.medium",
  slow: "nodes.slow",
  failed: "nodes.failed",
  unknown: "nodes.untested",
};

function Latency({
  node,
  results,
  pending,
}: {
  node: NodeView;
  results: NodeTestResults;
  pending: ReadonlySet<string>;
}) {
  const t = useT();
  const testing = pending.has(node.id);
  const { delay, failed, error } = delayOf(node, results, pending);
  const cls = latencyClass(delay, failed);
  const text = testing
    ? t("nodes.testing")
    : failed
      ? t("nodes.failed")
      : delay === null
        ? t("nodes.untested")
        : `${delay} ms`;
  const word = t(LATENCY_WORDS[cls]);
  const showWord = !testing && delay !== null && !failed;
  return (
    <span
      className={`latency latency-${testing ? "testing" : cls}`}
      title={error ? t("common.labelled", { label: word, value: error }) : word}
      data-latency={testing ? "testing" : cls}
    >
      <span className="latency-dot" aria-hidden="true" />
      {text}
      {showWord ? <span className="sr-only"> ({word})</span> : null}
    </span>
  );
}

/** One node: its name, type, delay, and "in use" or a button to use it. */
function NodeRow(props: {
  node: NodeView;
  results: NodeTestResults;
  pending: ReadonlySet<string>;
  busy: boolean;
  onChoose(id: string): void;
}) {
  const t = useT();
  const { node: n } = props;
  return (
    <li className={`node${n.selected ? " node-selected" : ""}`} aria-label={n.name}>
      <span className="node-name">{n.name}</span>
      <span className="muted">
        {n.type}
        {n.udp ? " · UDP" : ""}
      </span>
      <Latency node={n} results={props.results} pending={props.pending} />
      {n.selected ? (
        <span className="badge badge-good">{t("nodes.current")}</span>
      ) : (
        <button
          type="button"
          onClick={() => props.onChoose(n.id)}
          disabled={props.busy}
          aria-label={t("nodes.useLabel", { name: n.name })}
        >
          {t("nodes.use")}
        </button>
      )}
    </li>
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
  pending,
  sort,
  testing,
  canTest,
  busy,
  onTest,
  onChoose,
}: {
  group: Group;
  startOpen: boolean;
  results: NodeTestResults;
  pending: ReadonlySet<string>;
  sort: NodeSort;
  testing: string;
  /** False while the core is stopped (the screen says why once, above the groups). */
  canTest: boolean;
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
              disabled={testing !== "" || !canTest}
              aria-describedby={canTest ? undefined : "test-needs-core"}
              aria-label={t("nodes.testGroupLabel", { name: group.name })}
            >
              {testing === group.id ? t("nodes.testing") : t("nodes.testGroup")}
            </button>
          </div>
          <ul className="nodes" aria-label={group.name}>
            {sortNodes(group.nodes, sort, results, pending).map((n) => (
              <NodeRow
                key={n.id}
                node={n}
                results={results}
                pending={pending}
                busy={busy}
                onChoose={onChoose}
              />
            ))}
          </ul>
        </>
      ) : null}
    </details>
  );
}
