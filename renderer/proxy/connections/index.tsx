import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Connection } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { formatBytes, formatDuration } from "../parts/format.js";
import { useT, type Key } from "../i18n.js";
import { useApp } from "../store.js";
import { Alert, Card, Loading, errorText, useAction } from "../parts/ui.js";
import { useNarrow } from "../parts/use-narrow.js";
import { VirtualList } from "../parts/virtual-list.js";
import { ConnectionDetails } from "./connection-details.js";
import { chainText, host, ruleText } from "./connection-text.js";
import { wordsOf, type Sort, type SortKey } from "./connections-table.js";
import { useConnectionFeed } from "./use-connection-feed.js";

const COLUMNS: Array<{ key: SortKey; label: Key }> = [
  { key: "host", label: "conn.host" },
  { key: "network", label: "conn.network" },
  { key: "chain", label: "conn.chain" },
  { key: "rule", label: "conn.rule" },
  { key: "upload", label: "conn.upload" },
  { key: "download", label: "conn.download" },
  { key: "start", label: "conn.age" },
];

/**
 * The live connections. The whole list lives in a worker (connections-worker.ts), which asks
 * the service every second, searches and orders it; this page draws only the rows in view.
 */
export function ConnectionsScreen() {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const close = useAction();
  // On a phone each connection is a card (destination first), not a row wider than the screen.
  const narrow = useNarrow();
  const [query, setQuery] = useState("");
  const [sort, setSort] = useState<Sort>({ key: "start", desc: true });
  // The connection whose details are open; its last known state stays once it has ended.
  const [picked, setPicked] = useState<Connection | null>(null);
  const words = useMemo(() => wordsOf(t), [t]);
  const feed = useConnectionFeed({ query, sort, picked: picked?.id ?? null, words });
  const shown = feed.window;
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

  // The picked connection as the core lists it now (undefined: not heard yet; null: ended).
  const answer = picked && shown?.picked?.id === picked.id ? shown.picked.connection : undefined;
  useEffect(() => {
    // Its latest figures stay in view, and stay once it has ended.
    if (answer) setPicked((p) => (p && p.id === answer.id ? answer : p));
  }, [answer]);

  const now = Date.now();
  const total = shown?.total ?? 0;
  const matched = shown?.matched ?? 0;
  const rowAt = (i: number): Connection | undefined =>
    shown && i >= shown.start ? shown.rows[i - shown.start] : undefined;
  const closeOne = (c: Connection) =>
    void close.run(
      async () => (
        await api("DELETE /connections/:id", { params: { id: c.id } }),
        await feed.refresh()
      ),
    );
  const closeAll = () =>
    void close.run(
      async () => (await api("DELETE /connections"), await feed.refresh()),
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
          {t("conn.shown", { shown: matched, total })}
        </span>
      </div>
      {shown ? (
        <p className="muted">
          {t("conn.totals", {
            up: formatBytes(shown.uploadTotal),
            down: formatBytes(shown.downloadTotal),
          })}
        </p>
      ) : null}
      <Alert text={(feed.failure ? errorText(feed.failure, t) : "") || close.error} />
      <Alert kind="ok" text={close.done} />
      {!shown && !feed.failure ? <Loading /> : null}
      {matched > 0 ? (
        <div
          className={`table conn-table${narrow ? " conn-cards" : ""}`}
          role="table"
          aria-label={t("conn.title")}
          aria-rowcount={matched + 1}
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
                  aria-sort={
                    sort.key === col.key ? (sort.desc ? "descending" : "ascending") : "none"
                  }
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
            count={matched}
            itemAt={rowAt}
            onRange={feed.showRange}
            rowKey={(c) => c.id}
            rowHeight={narrow ? 96 : 36}
            // As tall as its rows, up to a screenful: a few rows leave no empty box.
            height={`min(60vh, 640px, ${matched * (narrow ? 96 : 36) + 2}px)`}
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
                <span
                  role="cell"
                  className="c-net"
                  title={`${c.metadata.network ?? ""} ${c.metadata.type ?? ""}`.trim()}
                >
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
      ) : null}
      {/* Nothing to list: one line under the search, no empty table. */}
      {shown && total === 0 ? <p className="muted">{t("conn.none")}</p> : null}
      {shown && total > 0 && matched === 0 ? <p className="muted">{t("conn.noMatch")}</p> : null}
      {picked ? (
        <ConnectionDetails
          connection={picked}
          ended={answer === null}
          now={now}
          onClose={closeDetails}
          onCloseConnection={closeOne}
        />
      ) : null}
    </Card>
  );
}
