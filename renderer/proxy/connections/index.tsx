import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Connection } from "../../../server/contract/proxy.js";
import { api, ApiError } from "../api.js";
import { useCoreWatch } from "../core/core-watch.js";
import { formatBytes, formatDuration } from "../parts/format.js";
import { useT, type Key, type Translate } from "../i18n.js";
import { useApp } from "../store.js";
import { Alert, Card, Loading, errorText, useAction } from "../parts/ui.js";
import { useNarrow } from "../parts/use-narrow.js";
import { VirtualList } from "../parts/virtual-list.js";
import { ConnectionDetails } from "./connection-details.js";
import { chainText, host, ruleText } from "./connection-text.js";
import { wordsOf, type Sort, type SortKey } from "./connections-table.js";
import type { Lang } from "../../shared/lang.js";
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

function SortHeader({ sort, onSort }: { sort: Sort; onSort(s: Sort): void }) {
  const t = useT();
  return COLUMNS.map((col) => (
    <span
      key={col.key}
      role="columnheader"
      aria-sort={sort.key === col.key ? (sort.desc ? "descending" : "ascending") : "none"}
    >
      <button
        type="button"
        className="linkish"
        onClick={() =>
          onSort({
            key: col.key,
            desc: sort.key === col.key ? !sort.desc : col.key !== "host",
          })
        }
      >
        {t(col.label)}
        {sort.key === col.key ? (sort.desc ? " ▼" : " ▲") : ""}
      </button>
    </span>
  ));
}

function TableHead(props: { narrow: boolean; sort: Sort; onSort(s: Sort): void }) {
  const t = useT();
  return (
    <div role="rowgroup">
      <div role="row" className="thead" aria-rowindex={1}>
        {props.narrow ? (
          <span className="muted" aria-hidden="true">
            {t("conn.sortBy")}
          </span>
        ) : null}
        <SortHeader sort={props.sort} onSort={props.onSort} />
        <span role="columnheader">
          <span className="sr-only">{t("conn.actions")}</span>
        </span>
      </div>
    </div>
  );
}

interface RowProps {
  c: Connection;
  narrow: boolean;
  now: number;
  lang: Lang;
  t: Translate;
  onOpen(c: Connection): void;
  onCloseConnection(c: Connection): void;
}

/** One connection's cells: a row of the table, or a card on a phone. */
function ConnectionCells({ c, narrow, now, lang, t, onOpen, onCloseConnection }: RowProps) {
  const label = (key: Key) => (narrow ? <span className="muted">{t(key)} </span> : null);
  return (
    <>
      <span role="cell" className="ellipsis c-host" title={host(c)}>
        <button
          type="button"
          className="linkish conn-open"
          data-conn={c.id}
          onClick={() => onOpen(c)}
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
        {label("conn.upShort")}
        {formatBytes(c.upload)}
      </span>
      <span role="cell" className="c-down">
        {label("conn.downShort")}
        {formatBytes(c.download)}
      </span>
      <span role="cell" className="c-age">
        {formatDuration((now - (Date.parse(c.start) || now)) / 1000, lang)}
      </span>
      <span role="cell" className="c-close">
        <button
          type="button"
          className="small"
          onClick={(e) => (e.stopPropagation(), onCloseConnection(c))}
          aria-label={t("conn.closeLabel", { host: host(c) })}
        >
          {t("conn.close")}
        </button>
      </span>
    </>
  );
}

type Feed = ReturnType<typeof useConnectionFeed>;

interface TableProps extends Omit<RowProps, "c" | "t" | "lang"> {
  feed: Feed;
  matched: number;
  sort: Sort;
  onSort(s: Sort): void;
  picked: Connection | null;
}

function ConnectionTable({ feed, matched, sort, onSort, picked, ...row }: TableProps) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const { narrow } = row;
  const shown = feed.window;
  const rowAt = (i: number): Connection | undefined =>
    shown && i >= shown.start ? shown.rows[i - shown.start] : undefined;
  return (
    <div
      className={`table conn-table${narrow ? " conn-cards" : ""}`}
      role="table"
      aria-label={t("conn.title")}
      aria-rowcount={matched + 1}
    >
      <TableHead narrow={narrow} sort={sort} onSort={onSort} />
      <VirtualList
        count={matched}
        itemAt={rowAt}
        onRange={feed.showRange}
        rowKey={(c) => c.id}
        rowHeight={narrow ? 96 : 36}
        // As tall as its rows, up to a screenful: a few rows leave no empty box.
        height={`min(60vh, 640px, ${matched * (narrow ? 96 : 36) + 2}px)`}
        label={t("conn.rows")}
        onRowClick={row.onOpen}
        rowClass={(c) => (picked?.id === c.id ? "vrow-picked" : "")}
        render={(c) => <ConnectionCells c={c} t={t} lang={lang} {...row} />}
      />
    </div>
  );
}

function SearchBar(props: {
  query: string;
  onQuery(q: string): void;
  matched: number;
  total: number;
}) {
  const t = useT();
  return (
    <div className="toolbar-row">
      <label className="grow">
        <span className="sr-only">{t("conn.search")}</span>
        <input
          type="search"
          placeholder={t("conn.search")}
          value={props.query}
          onChange={(e) => props.onQuery(e.target.value)}
        />
      </label>
      <span className="muted" role="status" data-testid="conn-count">
        {t("conn.shown", { shown: props.matched, total: props.total })}
      </span>
    </div>
  );
}

/**
 * The connection whose details are open (its last known state stays once it has ended), and
 * the focus going back to its row when the details close.
 */
/** A stopped core has no connections: said as a state, not a fault (the list asks on by itself). */
function CoreStoppedNote({ failure }: { failure: Error }) {
  const t = useT();
  const core = useCoreWatch();
  if (!core.known) return null;
  return core.stoppedOnPurpose ? (
    <Alert kind="info" text={t("conn.coreStopped")} />
  ) : (
    <Alert text={errorText(failure, t)} />
  );
}

/** Why the list is not there: a stopped core as a state, anything else in red. */
function FeedFailure({ failure }: { failure: Error | null }) {
  const t = useT();
  if (!failure) return null;
  if (failure instanceof ApiError && failure.code === "core.unreachable") {
    return <CoreStoppedNote failure={failure} />;
  }
  return <Alert text={errorText(failure, t)} />;
}

function usePicked() {
  const [picked, setPicked] = useState<Connection | null>(null);
  const opener = useRef<string>("");
  const open = useCallback((c: Connection) => {
    opener.current = c.id;
    setPicked(c);
  }, []);
  const close = useCallback(() => {
    setPicked(null);
    // Back to the row the person came from, when it is still on screen.
    const id = opener.current;
    requestAnimationFrame(() =>
      document.querySelector<HTMLElement>(`[data-conn="${CSS.escape(id)}"]`)?.focus(),
    );
  }, []);
  return { picked, setPicked, open, close };
}

/**
 * The live connections. The whole list lives in a worker (connections-worker.ts), which asks
 * the service every second, searches and orders it; this page draws only the rows in view.
 */
export function ConnectionsScreen() {
  const t = useT();
  const close = useAction();
  // On a phone each connection is a card (destination first), not a row wider than the screen.
  const narrow = useNarrow();
  const [query, setQuery] = useState("");
  const [sort, setSort] = useState<Sort>({ key: "start", desc: true });
  const { picked, setPicked, open, close: closeDetails } = usePicked();
  const words = useMemo(() => wordsOf(t), [t]);
  const feed = useConnectionFeed({ query, sort, picked: picked?.id ?? null, words });
  const shown = feed.window;

  // The picked connection as the core lists it now (undefined: not heard yet; null: ended).
  const answer = picked && shown?.picked?.id === picked.id ? shown.picked.connection : undefined;
  useEffect(() => {
    // Its latest figures stay in view, and stay once it has ended.
    if (answer) setPicked((p) => (p && p.id === answer.id ? answer : p));
  }, [answer, setPicked]);

  const now = Date.now();
  const total = shown?.total ?? 0;
  const matched = shown?.matched ?? 0;
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
  const closeAllButton = (
    <button
      type="button"
      className="danger"
      onClick={closeAll}
      disabled={close.busy || total === 0}
    >
      {t("conn.closeAll")}
    </button>
  );

  return (
    <Card title={t("conn.title")} actions={closeAllButton}>
      <SearchBar query={query} onQuery={setQuery} matched={matched} total={total} />
      {shown ? (
        <p className="muted">
          {t("conn.totals", {
            up: formatBytes(shown.uploadTotal),
            down: formatBytes(shown.downloadTotal),
          })}
        </p>
      ) : null}
      <FeedFailure failure={feed.failure} />
      <Alert text={close.error} />
      <Alert kind="ok" text={close.done} />
      {!shown && !feed.failure ? <Loading /> : null}
      {matched > 0 ? (
        <ConnectionTable
          {...{ feed, matched, sort, picked, narrow, now }}
          onSort={setSort}
          onOpen={open}
          onCloseConnection={closeOne}
        />
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
