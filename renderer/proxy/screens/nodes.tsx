import { useMemo, useState } from "react";
import { api } from "../api.js";
import { useT } from "../i18n.js";
import type { NodeTestResults, NodeView, Settings } from "../types.js";
import { Alert, Card, errorText, Loading, useAction, useLoad } from "../ui.js";
import { NodeGroup, type Group } from "./node-group.js";

const TEST_CHUNK = 500; // the API takes 1..500 ids per call
/** Above this many nodes, groups start closed (unless filtered or holding the choice). */
const OPEN_LIMIT = 600;

export function NodesScreen() {
  const t = useT();
  const nodes = useLoad(() => api<NodeView[]>("GET", "/nodes"));
  const settings = useLoad(() => api<Settings>("GET", "/settings"));
  const [filter, setFilter] = useState("");
  const [results, setResults] = useState<NodeTestResults>({});
  const [testing, setTesting] = useState<string>(""); // "all", a group id, or ""
  const [testError, setTestError] = useState("");
  const select = useAction();
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
    setTestError("");
    try {
      for (let i = 0; i < ids.length; i += TEST_CHUNK) {
        const part = await api<NodeTestResults>("POST", "/nodes/test", {
          ids: ids.slice(i, i + TEST_CHUNK),
        });
        setResults((prev) => ({ ...prev, ...part }));
      }
    } catch (err) {
      setTestError(errorText(err, t));
    }
    setTesting("");
  };

  const choose = async (body: { mode: "auto" } | { mode: "manual"; id: string }) => {
    await select.run(() => api("POST", "/nodes/select", body), t("nodes.selectionSaved"));
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
          disabled={testing !== "" || visibleIds.length === 0}
        >
          {testing === "all" ? t("nodes.testing") : t("nodes.testAll")}
        </button>
        <button type="button" onClick={() => void nodes.reload()}>
          {t("common.reload")}
        </button>
      </div>
      {mode === "manual" && !(nodes.data ?? []).some((n) => n.selected) && nodes.data ? (
        <Alert kind="info" text={t("nodes.manualNone")} />
      ) : null}
      {mode === "auto" ? <p className="muted">{t("nodes.autoHint")}</p> : null}
      <Alert text={nodes.error || settings.error || select.error || testError} />
      <Alert kind="ok" text={select.done} />
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
          testing={testing}
          busy={select.busy}
          onTest={(key, ids) => void test(key, ids)}
          onChoose={(id) => void choose({ mode: "manual", id })}
        />
      ))}
    </Card>
  );
}
