import { useMemo, useState, type ReactNode } from "react";
import { keep, stored } from "../../shared/storage.js";
import type { NodeView } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { LATENCY_FAST_MS, LATENCY_SLOW_MS, type LatencyClass } from "../parts/format.js";
import { useT, type Key, type Translate } from "../i18n.js";
import { CoreOutput, useCoreAction } from "../core/core-failure.js";
import { Alert, Card, Loading, useLoad, type Loaded } from "../parts/ui.js";
import { LATENCY_WORDS, NodeGroup, type Group } from "./node-group.js";
import { NODE_SORTS, type NodeSort } from "./node-order.js";
import { useLatencyTests } from "./use-latency-tests.js";

const SORT_KEY = "gatehouse.proxy.nodeSort";
const SORT_LABELS: Record<NodeSort, Key> = {
  list: "nodes.sortList",
  name: "nodes.sortName",
  latency: "nodes.sortLatency",
};

function storedSort(): NodeSort {
  const v = stored(SORT_KEY);
  return (NODE_SORTS as readonly string[]).includes(v ?? "") ? (v as NodeSort) : "list";
}

/** What each colour means, in words and figures. */
function LatencyLegend() {
  const t = useT();
  const ranges: Record<LatencyClass, string> = {
    good: t("nodes.rangeFast", { ms: LATENCY_FAST_MS }),
    medium: t("nodes.rangeMedium", { from: LATENCY_FAST_MS, to: LATENCY_SLOW_MS - 1 }),
    slow: t("nodes.rangeSlow", { ms: LATENCY_SLOW_MS }),
    failed: t("nodes.rangeFailed"),
    unknown: "",
  };
  const shown: LatencyClass[] = ["good", "medium", "slow", "failed", "unknown"];
  return (
    <ul className="latency-legend" aria-label={t("nodes.legend")}>
      {shown.map((cls) => (
        <li key={cls} className={`latency latency-${cls}`}>
          <span className="latency-dot" aria-hidden="true" />
          {t(LATENCY_WORDS[cls])}
          {ranges[cls] ? <span className="muted"> {ranges[cls]}</span> : null}
        </li>
      ))}
    </ul>
  );
}

/** Above this many nodes, groups start closed (unless filtered or holding the choice). */
const OPEN_LIMIT = 600;

/** The nodes the filter keeps (by name or type), grouped by subscription in list order. */
function groupNodes(nodes: NodeView[], filter: string): Group[] {
  const q = filter.trim().toLowerCase();
  const out = new Map<string, Group>();
  for (const n of nodes) {
    if (q && !n.name.toLowerCase().includes(q) && !n.type.toLowerCase().includes(q)) continue;
    let g = out.get(n.subscriptionID);
    if (!g)
      out.set(
        n.subscriptionID,
        (g = { id: n.subscriptionID, name: n.subscriptionName, nodes: [] }),
      );
    g.nodes.push(n);
  }
  return [...out.values()];
}

/** The order of the nodes in a group, kept in the browser between visits. */
function useSort(): [NodeSort, (next: NodeSort) => void] {
  const [sort, setSortState] = useState<NodeSort>(storedSort);
  const setSort = (next: NodeSort) => {
    keep(SORT_KEY, next);
    setSortState(next);
  };
  return [sort, setSort];
}

type Choice = { mode: "auto" } | { mode: "manual"; id: string };

function SelectionMode(props: {
  mode: string;
  selectedNode?: string;
  busy: boolean;
  onChoose(c: Choice): void;
}) {
  const t = useT();
  const { mode, selectedNode, busy, onChoose } = props;
  return (
    <fieldset className="segmented">
      <legend>{t("nodes.selection")}</legend>
      <label>
        <input
          type="radio"
          name="mode"
          checked={mode === "auto"}
          onChange={() => onChoose({ mode: "auto" })}
          disabled={busy}
        />
        {t("nodes.auto")}
      </label>
      <label>
        <input
          type="radio"
          name="mode"
          checked={mode === "manual"}
          disabled={busy || !selectedNode}
          onChange={() =>
            selectedNode !== undefined && onChoose({ mode: "manual", id: selectedNode })
          }
        />
        {t("nodes.manual")}
      </label>
    </fieldset>
  );
}

function SortPicker({ sort, onSort }: { sort: NodeSort; onSort(s: NodeSort): void }) {
  const t = useT();
  return (
    <label className="sort-pick">
      <span>{t("nodes.sort")}</span>
      <select value={sort} onChange={(e) => onSort(e.target.value as NodeSort)}>
        {NODE_SORTS.map((k) => (
          <option key={k} value={k}>
            {t(SORT_LABELS[k])}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Filter, "test all shown", the group order and reload; the selection mode first. */
function NodesToolbar(props: {
  selection: ReactNode;
  filter: string;
  onFilter(f: string): void;
  testAll: ReactNode;
  sort: NodeSort;
  onSort(s: NodeSort): void;
  onReload(): void;
}) {
  const t = useT();
  return (
    <div className="toolbar-row">
      {props.selection}
      <label className="grow">
        <span className="sr-only">{t("nodes.filter")}</span>
        <input
          type="search"
          placeholder={t("nodes.filter")}
          value={props.filter}
          onChange={(e) => props.onFilter(e.target.value)}
        />
      </label>
      {props.testAll}
      <SortPicker sort={props.sort} onSort={props.onSort} />
      <button type="button" onClick={props.onReload}>
        {t("common.reload")}
      </button>
    </div>
  );
}

/** What the list says when it has nothing to show, or is still loading. */
function ListState({
  nodes,
  groups,
  t,
}: {
  nodes: Loaded<NodeView[]>;
  groups: Group[];
  t: Translate;
}) {
  if (nodes.loading && !nodes.data) return <Loading />;
  if (nodes.data && nodes.data.length === 0) return <p className="muted">{t("nodes.none")}</p>;
  if (nodes.data && nodes.data.length > 0 && groups.length === 0) {
    return <p className="muted">{t("nodes.noMatch")}</p>;
  }
  return null;
}

export function NodesScreen() {
  const t = useT();
  const nodes = useLoad(() => api("GET /nodes"));
  const settings = useLoad(() => api("GET /settings"));
  const [filter, setFilter] = useState("");
  const [sort, setSort] = useSort();
  const tests = useLatencyTests();
  // Latency tests go through the core: while it is stopped they wait for it, and say why.
  const status = useLoad(() => api("GET /status"));
  const coreStopped =
    tests.refusedNoCore ||
    (status.data ? !status.data.coreOnline && !status.data.coreStarted : false);
  // A refused selection: the sentence by code, the core's own words folded apart.
  const select = useCoreAction();
  const mode = settings.data?.selectionMode ?? "auto";
  const groups = useMemo(() => groupNodes(nodes.data ?? [], filter), [nodes.data, filter]);

  const choose = async (body: Choice) => {
    // Worded when shown (below), so a change of language rewords it.
    await select.run(() => api("POST /nodes/select", { body }), "saved");
    await Promise.all([settings.reload(), nodes.reload()]);
  };

  const total = nodes.data?.length ?? 0;
  const visibleIds = groups.flatMap((g) => g.nodes.map((n) => n.id));
  const testAll = (
    <button
      type="button"
      onClick={() => void tests.test("all", visibleIds)}
      disabled={tests.testing !== "" || visibleIds.length === 0 || coreStopped}
      aria-describedby={coreStopped ? "test-needs-core" : undefined}
    >
      {tests.testing === "all" ? t("nodes.testing") : t("nodes.testAll")}
    </button>
  );
  const selection = (
    <SelectionMode
      mode={mode}
      selectedNode={settings.data?.selectedNode}
      busy={select.busy}
      onChoose={(c) => void choose(c)}
    />
  );
  return (
    <Card title={t("nodes.title")}>
      <NodesToolbar
        {...{ selection, filter, testAll, sort }}
        onFilter={setFilter}
        onSort={setSort}
        onReload={() => void nodes.reload()}
      />
      {coreStopped && !tests.testError ? (
        <p className="muted" id="test-needs-core" data-testid="test-needs-core">
          {status.data?.coreInstalled === false
            ? t("nodes.testNeedsInstall")
            : t("nodes.testNeedsCore")}
        </p>
      ) : null}
      <LatencyLegend />
      {mode === "manual" && !(nodes.data ?? []).some((n) => n.selected) && nodes.data ? (
        <Alert kind="info" text={t("nodes.manualNone")} />
      ) : null}
      {mode === "auto" ? <p className="muted">{t("nodes.autoHint")}</p> : null}
      <Alert text={nodes.error || settings.error || select.error || (tests.testError?.(t) ?? "")} />
      {!nodes.error && !settings.error ? <CoreOutput text={select.output} t={t} /> : null}
      <Alert kind="ok" text={select.done ? t("nodes.selectionSaved") : ""} />
      <ListState nodes={nodes} groups={groups} t={t} />
      {groups.map((g) => (
        <NodeGroup
          key={g.id}
          group={g}
          startOpen={total <= OPEN_LIMIT || filter.trim() !== "" || g.nodes.some((n) => n.selected)}
          results={tests.results}
          pending={tests.pending}
          sort={sort}
          testing={tests.testing}
          canTest={!coreStopped}
          busy={select.busy}
          onTest={(key, ids) => void tests.test(key, ids)}
          onChoose={(id) => void choose({ mode: "manual", id })}
        />
      ))}
    </Card>
  );
}
