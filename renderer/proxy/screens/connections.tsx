import { useCallback, useMemo, useRef, useState } from "react";
import { ConnectionsView, type Connection } from "../../../server/contract/proxy.js";
import { call, send } from "../api.js";
import { formatBytes, formatDuration } from "../format.js";
import { useT, type Key } from "../i18n.js";
import { useApp } from "../store.js";
import { Alert, Card, Loading, useAction, useLoad } from "../ui.js";
import { useNarrow } from "../use-narrow.js";
import { VirtualList } from "../virtual-list.js";
import { ConnectionDetails } from "./connection-details.js";
import { chainText, host, ruleText } from "./connection-text.js";

type SortKey = "host" | "network" | "chain" | "rule" | "upload" | "download" | "start";

const COLUMNS: Array<{ key: SortKey; label: Key }> = [
  { key: "host", label: "conn.host" },
  { key: "network", label: "conn.network" },
  { key: "chain", label: "conn.chain" },
  { key: "rule", label: "conn.rule" },
  { key: "upload", label: "conn.upload" },
  { key: "download", label: "conn.download" },
  { key: "start", label: "conn.age" },
];

function sortValue(c: Connection, key: SortKey): string | number {
  switch (key) {
    case "host":
      return host(c).toLowerCase();
    case "network":
      return `${c.metadata.network ?? ""} ${c.metadata.type ?? ""}`;
    case "chain":
      return chainText(c).toLowerCase();
    case "rule":
      return `${c.rule} ${c.rulePayload}`.toLowerCase();
    case "upload":
      return c.upload;
    case "download":
      return c.download;
    case "start":
      return Date.parse(c.start) || 0;
  }
}

export function ConnectionsScreen() {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const list = useLoad(() => call(ConnectionsView, "GET", "/connections"), 2000);
  const close = useAction();
  // On a phone each connection is a card (destination first), not a row wider than the screen.
  const narrow = useNarrow();
  const [query, setQuery] = useState("");
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: "start", desc: true });
  // The connection whose details are open; its last known state stays once it has ended.
  const [picked, setPicked] = useState<Connection | null>(null);
  const opener = useRef<string>("");
  const open = (c: Connection) => {
    opener.current = c.id;
    setPicked(c);
  };
  const closeDetails = useCallback(() => {
    setPicked(null);
    // Back to the row the person came from, when it is still on screen.
    const id = opener.current;
    requestAnimationFrame(() =>
      document.querySelector<HTMLElement>(`[data-conn="${CSS.escape(id)}"]`)?.focus(),
    );
  }, []);

  const rows = useMemo(() => {
    const q = query.trim().toLowerCase();
    const all = list.data?.connections ?? [];
    const matched = q
      ? all.filter((c) =>
          [
            host(c),
            c.metadata.sourceIP,
            c.metadata.process,
            c.rule,
            c.rulePayload,
            ruleText(c, t),
            chainText(c),
            chainText(c, t),
            c.metadata.network,
          ]
            .join(" ")
            .toLowerCase()
            .includes(q),
        )
      : all;
    const dir = sort.desc ? -1 : 1;
    return [...matched].sort((a, b) => {
      const x = sortValue(a, sort.key);
      const y = sortValue(b, sort.key);
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    });
  }, [list.data, query, sort, t]);

  const now = Date.now();
  const total = list.data?.connections?.length ?? 0;
  const live = picked ? list.data?.connections?.find((c) => c.id === picked.id) : undefined;
  const closeOne = (c: Connection) =>
    void close.run(
      async () => (
        await send("DELETE", `/connections/${encodeURIComponent(c.id)}`),
        await list.reload()
      ),
    );
  const closeAll = () =>
    void close.run(
      async () => (await send("DELETE", "/connections"), await list.reload()),
      t("conn.closedAll"),
    );

  return (
    <Card
      title={t("conn.title")}
      actions={
        <button
          type="button"
          className="danger"
          onClick={closeAll}
          disabled={close.busy || total === 0}
        >
          {t("conn.closeAll")}
        </button>
      }
    >
      <div className="toolbar-row">
        <label className="grow">
          <span className="sr-only">{t("conn.search")}</span>
          <input
            type="search"
            placeholder={t("conn.search")}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </label>
        <span className="muted" role="status" data-testid="conn-count">
          {t("conn.shown", { shown: rows.length, total })}
        </span>
      </div>
      {list.data ? (
        <p className="muted">
          {t("conn.totals", {
            up: formatBytes(list.data.uploadTotal),
            down: formatBytes(list.data.downloadTotal),
          })}
        </p>
      ) : null}
      <Alert text={list.error || close.error} />
      <Alert kind="ok" text={close.done} />
      {list.loading && !list.data ? <Loading /> : null}
      <div
        className={`table conn-table${narrow ? " conn-cards" : ""}`}
        role="table"
        aria-label={t("conn.title")}
        aria-rowcount={rows.length + 1}
      >
        <div role="rowgroup">
          <div role="row" className="thead" aria-rowindex={1}>
            {narrow ? (
              <span className="muted" aria-hidden="true">
                {t("conn.sortBy")}
              </span>
            ) : null}
            {COLUMNS.map((col) => (
              <span
                key={col.key}
                role="columnheader"
                aria-sort={sort.key === col.key ? (sort.desc ? "descending" : "ascending") : "none"}
              >
                <button
                  type="button"
                  className="linkish"
                  onClick={() =>
                    setSort({
                      key: col.key,
                      desc: sort.key === col.key ? !sort.desc : col.key !== "host",
                    })
                  }
                >
                  {t(col.label)}
                  {sort.key === col.key ? (sort.desc ? " ▼" : " ▲") : ""}
                </button>
              </span>
            ))}
            <span role="columnheader">
              <span className="sr-only">{t("conn.actions")}</span>
            </span>
          </div>
        </div>
        <VirtualList
          items={rows}
          rowHeight={narrow ? 96 : 36}
          height="min(60vh, 640px)"
          label={t("conn.rows")}
          onRowClick={open}
          rowClass={(c) => (picked?.id === c.id ? "vrow-picked" : "")}
          render={(c) => (
            <>
              <span role="cell" className="ellipsis c-host" title={host(c)}>
                <button
                  type="button"
                  className="linkish conn-open"
                  data-conn={c.id}
                  onClick={() => open(c)}
                  aria-label={t("conn.detailsLabel", { host: host(c) })}
                >
                  {host(c)}
                </button>
              </span>
              <span role="cell" className="c-net">
                {c.metadata.network} {c.metadata.type}
              </span>
              <span role="cell" className="ellipsis c-chain" title={chainText(c, t)}>
                {chainText(c, t)}
              </span>
              <span
                role="cell"
                className="ellipsis c-rule"
                title={`${c.rule}${c.rulePayload ? ` ${c.rulePayload}` : ""}`}
              >
                {narrow ? <span className="muted">{t("conn.rule")}: </span> : null}
                {ruleText(c, t)}
              </span>
              <span role="cell" className="c-up">
                {narrow ? <span className="muted">{t("conn.upShort")} </span> : null}
                {formatBytes(c.upload)}
              </span>
              <span role="cell" className="c-down">
                {narrow ? <span className="muted">{t("conn.downShort")} </span> : null}
                {formatBytes(c.download)}
              </span>
              <span role="cell" className="c-age">
                {formatDuration((now - (Date.parse(c.start) || now)) / 1000, lang)}
              </span>
              <span role="cell" className="c-close">
                <button
                  type="button"
                  className="small"
                  onClick={(e) => (e.stopPropagation(), closeOne(c))}
                  aria-label={t("conn.closeLabel", { host: host(c) })}
                >
                  {t("conn.close")}
                </button>
              </span>
            </>
          )}
        />
      </div>
      {list.data && total === 0 ? <p className="muted">{t("conn.none")}</p> : null}
      {picked ? (
        <ConnectionDetails
          connection={live ?? picked}
          ended={!live && Boolean(list.data)}
          now={now}
          onClose={closeDetails}
          onCloseConnection={closeOne}
        />
      ) : null}
    </Card>
  );
}
