import { useMemo, useState } from "react";
import { keep, stored } from "../../shared/storage.js";
import { NodeTestResults } from "../../../server/contract/proxy.js";
import { ApiError, api } from "../api.js";
import { LATENCY_FAST_MS, LATENCY_SLOW_MS, type LatencyClass } from "../parts/format.js";
import { useT, type Key } from "../i18n.js";
import { CoreOutput, useCoreAction } from "../core/core-failure.js";
import { Alert, Card, Loading, sayError, useLoad, type Say } from "../parts/ui.js";
import { LATENCY_WORDS, NodeGroup, type Group } from "./node-group.js";
import { NODE_SORTS, type NodeSort } from "./node-order.js";

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

const TEST_CHUNK = 500; // the API takes 1..500 ids per call
/** Above this many nodes, groups start closed (unless filtered or holding the choice). */
const OPEN_LIMIT = 600;

export function NodesScreen() {
  const t = useT();
  const nodes = useLoad(() => api("GET /nodes"));
  const settings = useLoad(() => api("GET /settings"));
  const [filter, setFilter] = useState("");
  const [results, setResults] = useState<NodeTestResults>({});
  // Ids being tested: their old figures are hidden until the new ones arrive.
  const [pending, setPending] = useState<ReadonlySet<string>>(new Set());
  const [sort, setSortState] = useState<NodeSort>(storedSort);
  const setSort = (next: NodeSort) => {
    keep(SORT_KEY, next);
    setSortState(next);
  };
  const [testing, setTesting] = useState<string>(""); // "all", a group id, or ""
  // Worded when shown, so a change of language rewords it.
  const [testError, setTestError] = useState<Say | null>(null);
  // Latency tests go through the core: while it is stopped they wait for it, and say why.
  const status = useLoad(() => api("GET /status"));
  const [refusedNoCore, setRefusedNoCore] = useState(false);
  const coreStopped =
    refusedNoCore || (status.data ? !status.data.coreOnline && !status.data.coreStarted : false);
  // A refused selection: the sentence by code, the core's own words folded apart.
  const select = useCoreAction();
  const mode = settings.data?.selectionMode ?? "auto";

  const groups = useMemo(() => {
    const q = filter.trim().toLowerCase();
    const out = new Map<string, Group>();
    for (const n of nodes.data ?? []) {
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
  }, [nodes.data, filter]);

  const test = async (key: string, ids: string[]) => {
    if (ids.length === 0) return;
    setTesting(key);
    setTestError(null);
    setPending(new Set(ids));
    setResults((prev) => {
      const next = { ...prev };
      for (const id of ids) delete next[id];
      return next;
    });
    try {
      for (let i = 0; i < ids.length; i += TEST_CHUNK) {
        const chunk = ids.slice(i, i + TEST_CHUNK);
        const part = await api("POST /nodes/test", { body: { ids: chunk } });
        setResults((prev) => ({ ...prev, ...part }));
        const done = new Set(chunk);
        setPending((prev) => new Set([...prev].filter((id) => !done.has(id))));
      }
    } catch (err) {
      setTestError(() => sayError(err));
      // The core stopped since the page looked: the buttons wait for it from now on.
      if (err instanceof ApiError && err.code === "node.test_needs_core") setRefusedNoCore(true);
    }
    setPending(new Set());
    setTesting("");
  };

  const choose = async (body: { mode: "auto" } | { mode: "manual"; id: string }) => {
    // Worded when shown (below), so a change of language rewords it.
    await select.run(() => api("POST /nodes/select", { body }), "saved");
    await Promise.all([settings.reload(), nodes.reload()]);
  };

  const total = nodes.data?.length ?? 0;
  const visibleIds = groups.flatMap((g) => g.nodes.map((n) => n.id));
  return (
    <Card title={t("nodes.title")}>
      <div className="toolbar-row">
        <fieldset className="segmented">
          <legend>{t("nodes.selection")}</legend>
          <label>
            <input
              type="radio"
              name="mode"
              checked={mode === "auto"}
              onChange={() => void choose({ mode: "auto" })}
              disabled={select.busy}
            />
            {t("nodes.auto")}
          </label>
          <label>
            <input
              type="radio"
              name="mode"
              checked={mode === "manual"}
              disabled={select.busy || !settings.data?.selectedNode}
              onChange={() =>
                settings.data && void choose({ mode: "manual", id: settings.data.selectedNode })
              }
            />
            {t("nodes.manual")}
          </label>
        </fieldset>
        <label className="grow">
          <span className="sr-only">{t("nodes.filter")}</span>
          <input
            type="search"
            placeholder={t("nodes.filter")}
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
        </label>
        <button
          type="button"
          onClick={() => void test("all", visibleIds)}
          disabled={testing !== "" || visibleIds.length === 0 || coreStopped}
          aria-describedby={coreStopped ? "test-needs-core" : undefined}
        >
          {testing === "all" ? t("nodes.testing") : t("nodes.testAll")}
        </button>
        <label className="sort-pick">
          <span>{t("nodes.sort")}</span>
          <select value={sort} onChange={(e) => setSort(e.target.value as NodeSort)}>
            {NODE_SORTS.map((k) => (
              <option key={k} value={k}>
                {t(SORT_LABELS[k])}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => void nodes.reload()}>
          {t("common.reload")}
        </button>
      </div>
      {coreStopped && !testError ? (
        <p className="muted" id="test-needs-core" data-testid="test-needs-core">
          {t("nodes.testNeedsCore")}
        </p>
      ) : null}
      <LatencyLegend />
      {mode === "manual" && !(nodes.data ?? []).some((n) => n.selected) && nodes.data ? (
        <Alert kind="info" text={t("nodes.manualNone")} />
      ) : null}
      {mode === "auto" ? <p className="muted">{t("nodes.autoHint")}</p> : null}
      <Alert text={nodes.error || settings.error || select.error || (testError?.(t) ?? "")} />
      {!nodes.error && !settings.error ? <CoreOutput text={select.output} t={t} /> : null}
      <Alert kind="ok" text={select.done ? t("nodes.selectionSaved") : ""} />
      {nodes.loading && !nodes.data ? <Loading /> : null}
      {nodes.data && nodes.data.length === 0 ? <p className="muted">{t("nodes.none")}</p> : null}
      {nodes.data && nodes.data.length > 0 && groups.length === 0 ? (
        <p className="muted">{t("nodes.noMatch")}</p>
      ) : null}
      {groups.map((g) => (
        <NodeGroup
          key={g.id}
          group={g}
          startOpen={total <= OPEN_LIMIT || filter.trim() !== "" || g.nodes.some((n) => n.selected)}
          results={results}
          pending={pending}
          sort={sort}
          testing={testing}
          canTest={!coreStopped}
          busy={select.busy}
          onTest={(key, ids) => void test(key, ids)}
          onChoose={(id) => void choose({ mode: "manual", id })}
        />
      ))}
    </Card>
  );
}
