import { useCallback, useEffect, useRef, useState } from "react";
import { formatBytes, formatDateTime } from "../../shared/format.js";
import { ApiError, call } from "../api.js";
import type { AreaProps } from "../app.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import type { Parser } from "../../shared/api-client.js";
import {
  MineSchema,
  ParcelViewSchema,
  ShareSchema,
  type ParcelState,
  type ParcelView as Parcel,
  type Share,
} from "../../../server/contract/parcel-views.js";
import { Countdown } from "../ui/countdown.js";
import { useErrorText } from "../ui/errors.js";
import { Notice } from "../ui/notice.js";
import { SharePanel } from "../ui/share-panel.js";
import { KeychainNotice } from "../desktop/keychain-notice.js";
import { forgetToken, inDesktop, keptTokenIds, loadToken, useKeychain } from "../ui/tokens.js";
import { mineDict } from "./i18n.js";
import "./mine.css";

const BADGE: Record<ParcelState, string> = {
  uploading: "badge-info",
  published: "badge-good",
  expired: "badge-fair",
  exhausted: "badge-fair",
  revoked: "badge-bad",
  review: "badge-bad",
};

/** Owner calls carry the stored manage_token too, in case the visitor cookie is gone. */
async function ownerCall<T>(schema: Parser<T>, path: string, id: string): Promise<T> {
  const token = await loadToken(id);
  return call(schema, "POST", path, undefined, token ? { token } : {});
}

/** `GET /mine`; without a visitor cookie yet (401), `GET /policy` issues one first. */
async function fetchMine(loadPolicy: () => Promise<void>): Promise<Parcel[]> {
  try {
    return (await call(MineSchema, "GET", "/mine")).items;
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) throw err;
    await loadPolicy();
    return (await call(MineSchema, "GET", "/mine")).items;
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
    return await call(ParcelViewSchema, "GET", `/uploads/${encodeURIComponent(id)}`, undefined, {
      token,
    });
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

type Confirm = "revoke" | "code" | null;

/** How people name a parcel: its first file, and how many more (never its id). */
function useParcelName(): (p: Parcel) => string {
  const t = useT(mineDict);
  return (p) => {
    const first = p.files[0]?.name ?? "";
    return p.files.length > 1
      ? t("nameMore", { name: first, n: p.files.length - 1, total: p.files.length })
      : first;
  };
}

function ParcelCard({ parcel, onChanged }: { parcel: Parcel; onChanged(p?: Parcel): void }) {
  const t = useT(mineDict);
  const lang = useApp((s) => s.lang);
  const describe = useErrorText();
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [refused, setRefused] = useState(false);
  const [share, setShare] = useState<Share | null>(null);
  const size = parcel.files.reduce((sum, f) => sum + f.size, 0);
  const live =
    parcel.state === "published" || parcel.state === "uploading" || parcel.state === "review";
  const name = useParcelName()(parcel);
  const shown = parcel.files.slice(0, 4);

  const act = async (kind: "revoke" | "code") => {
    setBusy(true);
    setError(null);
    setRefused(false);
    try {
      if (kind === "revoke") {
        const p = await ownerCall(
          ParcelViewSchema,
          `/parcels/${encodeURIComponent(parcel.id)}/revoke`,
          parcel.id,
        );
        setShare(null);
        onChanged(p);
      } else {
        const s = await ownerCall(
          ShareSchema,
          `/parcels/${encodeURIComponent(parcel.id)}/code`,
          parcel.id,
        );
        setShare(s);
        onChanged();
      }
      setConfirm(null);
    } catch (err) {
      if (kind === "code" && err instanceof ApiError && err.code === "parcel.not_published") {
        // The parcel changed since the list was loaded (most often: wrong passwords locked
        // it). Say so in the reader's words and show its state now, which explains the rest.
        setConfirm(null);
        setError(null);
        setRefused(true);
        onChanged();
      } else setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <li className={`parcel-card card state-${parcel.state}`} aria-label={t("parcelOf", { name })}>
      <div className="parcel-top">
        <span className={`badge ${BADGE[parcel.state]}`}>{t(`state_${parcel.state}`)}</span>
        <span className="muted small">
          {parcel.sent_at
            ? t("sent", { time: formatDateTime(parcel.sent_at * 1000, lang) })
            : t("created", { time: formatDateTime(parcel.created_at * 1000, lang) })}
        </span>
        {parcel.has_password ? <span className="badge">{t("passwordBadge")}</span> : null}
      </div>
      <div className="parcel-files">
        <strong>{t("filesSummary", { n: parcel.files.length, size: formatBytes(size) })}</strong>
        <ul className="name-list">
          {shown.map((f) => (
            <li key={f.id} className="ellipsis" title={f.name}>
              {f.name} <span className="muted">· {formatBytes(f.size)}</span>
            </li>
          ))}
          {parcel.files.length > shown.length ? (
            <li className="muted">{t("more", { n: parcel.files.length - shown.length })}</li>
          ) : null}
        </ul>
      </div>
      <dl className="parcel-facts">
        <div>
          <dt>{t("downloads")}</dt>
          <dd>
            {t("downloadsValue", {
              left: parcel.downloads_left,
              allowed: parcel.downloads_allowed,
            })}
          </dd>
        </div>
        <div>
          <dt>{t("expiry")}</dt>
          <dd>
            {live ? (
              <Countdown
                until={parcel.expires_at}
                verb={parcel.state === "uploading" ? "ends" : "expires"}
              />
            ) : (
              t("ended")
            )}
          </dd>
        </div>
      </dl>
      {parcel.state === "review" ? (
        <Notice kind="warn">
          <strong>{t("lockedTitle")}</strong>
          {lang === "zh-CN" ? "" : " "}
          {t("reviewHint")}
        </Notice>
      ) : null}
      {share ? (
        <div className="parcel-share">
          <div className="card-head">
            <h3>{t("newShare")}</h3>
            <button type="button" className="small" onClick={() => setShare(null)}>
              {t("close")}
            </button>
          </div>
          <SharePanel share={share} />
        </div>
      ) : null}
      <Notice kind="error">{error ? describe(error) : refused ? t("newCodeRefused") : null}</Notice>
      {parcel.state === "published" || parcel.state === "uploading" || parcel.state === "review" ? (
        <div className="button-row" role="group" aria-label={t("actionsFor", { name })}>
          {confirm ? (
            <>
              <span>{confirm === "revoke" ? t("revokeConfirm") : t("newCodeConfirm")}</span>
              <button
                type="button"
                className={confirm === "revoke" ? "danger" : "primary"}
                disabled={busy}
                onClick={() => void act(confirm)}
              >
                {confirm === "revoke" ? t("revokeYes") : t("newCodeYes")}
              </button>
              <button type="button" disabled={busy} onClick={() => setConfirm(null)}>
                {t("keep")}
              </button>
            </>
          ) : (
            <>
              {parcel.state === "published" ? (
                <button type="button" title={t("newCodeHint")} onClick={() => setConfirm("code")}>
                  {t("newCode")}
                </button>
              ) : null}
              <button type="button" className="danger" onClick={() => setConfirm("revoke")}>
                {t("revoke")}
              </button>
            </>
          )}
        </div>
      ) : null}
    </li>
  );
}

/** `#/mine`: the visitor's parcels with state, downloads, live expiry, revoke and new code. */
export default function MineScreen(_props: AreaProps) {
  const t = useT(mineDict);
  const describe = useErrorText();
  const loadPolicy = useApp((s) => s.loadPolicy);
  // `GET /policy`, asked by the shell at start, issues the visitor cookie `/mine` needs: wait
  // for it rather than be refused (a 401 in the console) on a first visit.
  const policyLoading = useApp((s) => s.policy.phase === "loading");
  const keychainRefused = useKeychain((s) => s.refusal !== null);
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
      {items === null ? (
        loading ? (
          <p className="muted" role="status">
            …
          </p>
        ) : null
      ) : items.length === 0 ? (
        <div className="empty card">
          <p>{t("empty")}</p>
          <a className="button primary-link" href="#/">
            {t("sendFirst")}
          </a>
        </div>
      ) : (
        <ul className="parcel-list" aria-label={t("heading")}>
          {items.map((p) => (
            <ParcelCard key={p.id} parcel={p} onChanged={replace} />
          ))}
        </ul>
      )}
    </div>
  );
}
