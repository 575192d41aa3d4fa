import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError } from "../api.js";
import { parcelApi } from "../api-full.js";
import type { AreaProps } from "../app.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import type { ParcelView as Parcel } from "../../../server/contract/parcel-views.js";
import { useErrorText } from "../ui/errors.js";
import { Notice } from "../ui/notice.js";
import { KeychainNotice } from "../desktop/keychain-notice.js";
import { forgetToken, inDesktop, keptTokenIds, loadToken, useKeychain } from "../ui/tokens.js";
import { mineDict } from "./i18n.js";
import { ParcelCard } from "./parcel-card.js";
import "./mine.css";

/** `GET /mine`; without a visitor cookie yet (401), `GET /policy` issues one first. */
async function fetchMine(loadPolicy: () => Promise<void>): Promise<Parcel[]> {
  try {
    return (await parcelApi("GET /mine")).items;
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) throw err;
    await loadPolicy();
    return (await parcelApi("GET /mine")).items;
  }
}

/**
 * A parcel the desktop keeps the token of, read with that token (`GET /uploads/:id`; the app
 * attaches a token its keychain holds, the page sends one only this window keeps). A parcel the
 * service no longer has (cleaned up, deleted by the administrator: 404) or a token it does not
 * know at all (its data was reset: 401) can do nothing more: the token goes.
 */
async function fetchKept(id: string): Promise<Parcel | null> {
  const token = await loadToken(id);
  try {
    return await parcelApi("GET /uploads/:id", { params: { id }, token });
  } catch (err) {
    if (
      err instanceof ApiError &&
      (err.status === 404 || (err.status === 401 && err.code === "owner.token_invalid"))
    ) {
      await forgetToken(id);
      return null;
    }
    throw err;
  }
}

/**
 * The list: this browser's parcels (visitor cookie) and, in the desktop app, every parcel
 * whose token the keychain holds, so the list survives cleared cookies. Newest first.
 */
async function fetchParcels(loadPolicy: () => Promise<void>): Promise<Parcel[]> {
  const mine = await fetchMine(loadPolicy);
  if (!inDesktop()) return mine;
  const listed = new Set(mine.map((p) => p.id));
  const kept = await Promise.all(
    (await keptTokenIds()).filter((id) => !listed.has(id)).map(fetchKept),
  );
  const all = [...mine, ...kept.filter((p): p is Parcel => p !== null)];
  const when = (p: Parcel) => p.sent_at ?? p.created_at;
  return all.sort((a, b) => when(b) - when(a));
}

/** Tokens of parcels that have ended can do nothing more: drop them (keychain included). */
function forgetIfEnded(p: Parcel): void {
  if (p.state === "expired" || p.state === "exhausted" || p.state === "revoked")
    void forgetToken(p.id);
}

/**
 * The list, loaded once the visitor cookie is there and every 30 s while the page is shown;
 * `replace` puts in a parcel a card changed, or loads the list again when it gives none.
 */
function useMineList() {
  const loadPolicy = useApp((s) => s.loadPolicy);
  // `GET /policy`, asked by the shell at start, issues the visitor cookie `/mine` needs: wait
  // for it rather than be refused (a 401 in the console) on a first visit.
  const policyLoading = useApp((s) => s.policy.phase === "loading");
  const [items, setItems] = useState<Parcel[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const alive = useRef(true);

  const reload = useCallback(async () => {
    setLoading(true);
    try {
      const list = await fetchParcels(loadPolicy);
      for (const p of list) forgetIfEnded(p);
      if (!alive.current) return;
      setItems(list);
      setError(null);
    } catch (err) {
      if (alive.current) setError(err);
    } finally {
      if (alive.current) setLoading(false);
    }
  }, [loadPolicy]);

  useEffect(() => {
    if (policyLoading) return;
    alive.current = true;
    void reload();
    // Downloads happen elsewhere: keep the counts fresh while the page is open.
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") void reload();
    }, 30_000);
    return () => {
      alive.current = false;
      clearInterval(timer);
    };
  }, [reload, policyLoading]);

  const replace = (p?: Parcel) => {
    if (p) forgetIfEnded(p);
    if (p) setItems((list) => list?.map((x) => (x.id === p.id ? p : x)) ?? null);
    else void reload();
  };
  return { items, error, loading, reload, replace };
}

/** The cards, or the way to send a first parcel, or that the list is loading. */
function MineList({
  items,
  loading,
  replace,
}: Pick<ReturnType<typeof useMineList>, "items" | "loading" | "replace">) {
  const t = useT(mineDict);
  if (items === null)
    return loading ? (
      <p className="muted" role="status">
        …
      </p>
    ) : null;
  if (items.length === 0)
    return (
      <div className="empty card">
        <p>{t("empty")}</p>
        <a className="button primary-link" href="#/">
          {t("sendFirst")}
        </a>
      </div>
    );
  return (
    <ul className="parcel-list" aria-label={t("heading")}>
      {items.map((p) => (
        <ParcelCard key={p.id} parcel={p} onChanged={replace} />
      ))}
    </ul>
  );
}

/** `#/mine`: the visitor's parcels with state, downloads, live expiry, revoke and new code. */
export default function MineScreen(_props: AreaProps) {
  const t = useT(mineDict);
  const describe = useErrorText();
  const keychainRefused = useKeychain((s) => s.refusal !== null);
  const { items, error, loading, reload, replace } = useMineList();
  return (
    <div className="mine-screen">
      <div className="mine-head">
        <h1>{t("heading")}</h1>
        <button type="button" onClick={() => void reload()} disabled={loading}>
          ↻ {t("refresh")}
        </button>
      </div>
      <p className="muted">
        {!inDesktop() ? t("lead") : keychainRefused ? t("leadDesktopMemory") : t("leadDesktop")}
      </p>
      <KeychainNotice />
      {error ? (
        <Notice
          kind="error"
          action={
            <button type="button" onClick={() => void reload()}>
              {t("retry")}
            </button>
          }
        >
          {t("loadFailed")} {describe(error)}
        </Notice>
      ) : null}
      <MineList items={items} loading={loading} replace={replace} />
    </div>
  );
}
