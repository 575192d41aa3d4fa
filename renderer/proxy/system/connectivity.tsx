import { useRef, useState } from "react";
import { ConnectivityResult, type ConnectivitySite } from "../../../server/contract/proxy.js";
import { api } from "../api.js";
import { siteDetail } from "../core/core-words.js";
import { useT, type Key, type Translate } from "../i18n.js";
import { Alert, Card, errorText, Loading, useLoad } from "../parts/ui.js";

const MAX_PARALLEL = 3; // the service answers 429 beyond three tests at once

/** Sites whose name differs in the reader's language (the rest are brand names as they are). */
const SITE_NAMES: Record<string, Key> = {
  baidu: "site.baidu",
  bilibili: "site.bilibili",
  wikipedia: "site.wikipedia",
};

function siteName(site: ConnectivitySite, t: Translate): string {
  const key = SITE_NAMES[site.id];
  return key ? t(key) : site.name;
}

type Entry =
  | { state: "queued" }
  | { state: "running" }
  | { state: "done"; result: ConnectivityResult }
  | { state: "error"; text: string };

/** One site's line: not tested, waiting, testing, or how its test went. */
function entryLine(entry: Entry | undefined, t: Translate): { text: string; cls: string } {
  if (!entry) return { text: t("conn.notTested"), cls: "muted" };
  if (entry.state === "queued") return { text: t("conn.queued"), cls: "muted" };
  if (entry.state === "running") return { text: t("conn.testing"), cls: "muted" };
  if (entry.state === "error") return { text: entry.text, cls: "latency-bad" };
  const r = entry.result;
  const head =
    r.status === "ok"
      ? t("conn.siteOk")
      : r.status === "timeout"
        ? t("conn.siteTimeout")
        : t("conn.siteFailed");
  // The detail says what happened (the HTTP status, or why it failed) once, in words.
  const parts = [head, `${r.durationMS} ms`];
  const detail = siteDetail(r, t);
  if (detail) parts.push(detail);
  if (r.status === "ok") parts.push(r.tlsVerified ? t("conn.tlsOk") : t("conn.tlsNo"));
  return { text: parts.join(" · "), cls: r.status === "ok" ? "latency-good" : "latency-bad" };
}

/** The tests asked for, run at most MAX_PARALLEL at once; a site queued or running is not asked twice. */
function useSiteTests() {
  const t = useT();
  const [entries, setEntries] = useState<Record<string, Entry>>({});
  const queue = useRef<string[]>([]);
  const running = useRef(0);
  const pump = () => {
    while (running.current < MAX_PARALLEL && queue.current.length > 0) {
      const id = queue.current.shift() as string;
      running.current++;
      setEntries((e) => ({ ...e, [id]: { state: "running" } }));
      api("POST /system/connectivity/test", { body: { siteId: id } })
        .then((result) => setEntries((e) => ({ ...e, [id]: { state: "done", result } })))
        .catch((err: unknown) =>
          setEntries((e) => ({ ...e, [id]: { state: "error", text: errorText(err, t) } })),
        )
        .finally(() => {
          running.current--;
          pump();
        });
    }
  };
  const enqueue = (ids: string[]) => {
    const fresh = ids.filter(
      (id) =>
        !queue.current.includes(id) && !["queued", "running"].includes(entries[id]?.state ?? ""),
    );
    if (fresh.length === 0) return;
    queue.current.push(...fresh);
    setEntries((e) => ({
      ...e,
      ...Object.fromEntries(fresh.map((id) => [id, { state: "queued" } as Entry])),
    }));
    pump();
  };
  return { entries, enqueue };
}

function SiteRow(props: { site: ConnectivitySite; entry: Entry | undefined; onTest(): void }) {
  const t = useT();
  const { site: s, entry } = props;
  const l = entryLine(entry, t);
  return (
    <li>
      <button
        type="button"
        onClick={props.onTest}
        disabled={entry?.state === "queued" || entry?.state === "running"}
        aria-label={t("sys.testSite", { name: siteName(s, t) })}
      >
        {siteName(s, t)}
      </button>
      <span className="badge">
        {s.category === "domestic" ? t("sys.domestic") : t("sys.global")}
      </span>
      <span className={l.cls} role="status" data-testid={`site-${s.id}`}>
        {l.text}
      </span>
    </li>
  );
}

export function ConnectivityCard() {
  const t = useT();
  const sites = useLoad(() => api("GET /system/connectivity"));
  const { entries, enqueue } = useSiteTests();
  return (
    <Card
      title={t("sys.connectivityTitle")}
      actions={
        <button
          type="button"
          onClick={() => enqueue((sites.data ?? []).map((s) => s.id))}
          disabled={!sites.data}
        >
          {t("sys.testAllSites")}
        </button>
      }
    >
      <p className="muted">{t("sys.connectivityHint")}</p>
      <Alert text={sites.error} />
      {sites.loading && !sites.data ? <Loading /> : null}
      <ul className="sites">
        {sites.data?.map((s) => (
          <SiteRow key={s.id} site={s} entry={entries[s.id]} onTest={() => enqueue([s.id])} />
        ))}
      </ul>
    </Card>
  );
}
