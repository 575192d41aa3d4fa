import { useMemo, useState } from "react";
import { api } from "../api.js";
import { latencyClass } from "../format.js";
import { useT } from "../i18n.js";
import type { NodeTestResults, NodeView, Settings } from "../types.js";
import { Alert, Card, errorText, Loading, useAction, useLoad } from "../ui.js";

const TEST_CHUNK = 500; // the API takes 1..500 ids per call

interface Group {
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
        <details key={g.id} open className="group">
          <summary>
            <span className="group-name">{g.name}</span>{" "}
            <span className="muted">{t("nodes.count", { n: g.nodes.length })}</span>
          </summary>
          <div className="button-row">
            <button
              type="button"
              onClick={() =>
                void test(
                  g.id,
                  g.nodes.map((n) => n.id),
                )
              }
              disabled={testing !== ""}
              aria-label={t("nodes.testGroupLabel", { name: g.name })}
            >
              {testing === g.id ? t("nodes.testing") : t("nodes.testGroup")}
            </button>
          </div>
          <ul className="nodes" aria-label={g.name}>
            {g.nodes.map((n) => (
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
                    onClick={() => void choose({ mode: "manual", id: n.id })}
                    disabled={select.busy}
                    aria-label={t("nodes.useLabel", { name: n.name })}
                  >
                    {t("nodes.use")}
                  </button>
                )}
              </li>
            ))}
          </ul>
        </details>
      ))}
    </Card>
  );
}
