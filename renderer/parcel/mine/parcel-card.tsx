import { useState } from "react";
import { formatBytes, formatDateTime } from "../../shared/format.js";
import { ApiError } from "../api.js";
import { parcelApi } from "../api-full.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import type {
  ParcelState,
  ParcelView as Parcel,
  Share,
} from "../../../server/contract/parcel-views.js";
import { Countdown } from "../ui/countdown.js";
import { useErrorText } from "../ui/errors.js";
import { Notice } from "../ui/notice.js";
import { SharePanel } from "../ui/share-panel.js";
import { loadToken, useKeychain } from "../ui/tokens.js";
import { mineDict } from "./i18n.js";

const BADGE: Record<ParcelState, string> = {
  uploading: "badge-info",
  published: "badge-good",
  expired: "badge-fair",
  exhausted: "badge-fair",
  revoked: "badge-bad",
  review: "badge-bad",
};

/** Owner calls carry the stored manage_token too, in case the visitor cookie is gone. */
async function ownerToken(id: string): Promise<{ token?: string }> {
  const token = await loadToken(id);
  return token ? { token } : {};
}

/**
 * The code handed out, shown again: the service keeps it sealed with the parcel's manage
 * token, which this browser holds for parcels sent from here (in the desktop app the app
 * attaches the keychain's token to the request itself). Null when no token came with the
 * request (403 owner.token_needed): this device holds no key to the code.
 */
async function currentShare(id: string): Promise<Share | null> {
  const token = await ownerToken(id);
  try {
    return await parcelApi("GET /parcels/:id/code", { params: { id }, ...token });
  } catch (err) {
    if (err instanceof ApiError && err.code === "owner.token_needed") return null;
    throw err;
  }
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

/** What the card shows under its facts: a share (new or current code), or why none. */
type Panel =
  | { kind: "new" | "current"; share: Share }
  | { kind: "noKey" }
  | { kind: "error"; error: unknown }
  | null;

/** The owner's calls on one parcel, and what the card shows of them. */
function useOwnerActions(parcel: Parcel, onChanged: (p?: Parcel) => void) {
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [refused, setRefused] = useState(false);
  const [panel, setPanel] = useState<Panel>(null);

  /** One call at a time: busy meanwhile, the last error and refusal cleared first. */
  const run = async (call: () => Promise<void>, fail: (err: unknown) => void) => {
    setBusy(true);
    setError(null);
    setRefused(false);
    try {
      await call();
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  const showCode = () =>
    run(
      async () => {
        const s = await currentShare(parcel.id);
        setPanel(s ? { kind: "current", share: s } : { kind: "noKey" });
      },
      (err) => {
        setPanel({ kind: "error", error: err });
        // The parcel may have ended or been locked since the list was loaded: show it now.
        if (err instanceof ApiError && err.code === "parcel.code_ended") onChanged();
      },
    );

  const act = (kind: "revoke" | "code") =>
    run(
      async () => {
        if (kind === "revoke") {
          const p = await parcelApi("POST /parcels/:id/revoke", {
            params: { id: parcel.id },
            ...(await ownerToken(parcel.id)),
          });
          setPanel(null);
          onChanged(p);
        } else {
          const s = await parcelApi("POST /parcels/:id/code", {
            params: { id: parcel.id },
            ...(await ownerToken(parcel.id)),
          });
          setPanel({ kind: "new", share: s });
          onChanged();
        }
        setConfirm(null);
      },
      (err) => {
        if (kind === "code" && err instanceof ApiError && err.code === "parcel.not_published") {
          // The parcel changed since the list was loaded (most often: wrong passwords locked
          // it). Say so in the reader's words and show its state now, which explains the rest.
          setConfirm(null);
          setError(null);
          setRefused(true);
          onChanged();
        } else setError(err);
      },
    );

  return { confirm, setConfirm, busy, error, refused, panel, setPanel, showCode, act };
}

type OwnerActions = ReturnType<typeof useOwnerActions>;

/** The state badge, when it was sent, and the first few files. */
function ParcelSummary({ parcel }: { parcel: Parcel }) {
  const t = useT(mineDict);
  const lang = useApp((s) => s.lang);
  const size = parcel.files.reduce((sum, f) => sum + f.size, 0);
  const shown = parcel.files.slice(0, 4);
  return (
    <>
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
    </>
  );
}

/** Downloads and expiry: what is left of a live parcel, what was taken of an ended one. */
function ParcelFacts({ parcel, live }: { parcel: Parcel; live: boolean }) {
  const t = useT(mineDict);
  return (
    <dl className="parcel-facts">
      <div>
        <dt>{t(live ? "downloads" : "downloadsTakenLabel")}</dt>
        <dd>
          {/* An ended parcel has nothing left to take: say how many were taken instead. */}
          {live
            ? t("downloadsValue", {
                left: parcel.downloads_left,
                allowed: parcel.downloads_allowed,
              })
            : t("downloadsTaken", {
                n: Math.max(0, parcel.downloads_allowed - parcel.downloads_left),
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
  );
}

/** The share a code call gave (new or current), or why there is none. */
function ShareResult({ panel, close }: { panel: Panel; close(): void }) {
  const t = useT(mineDict);
  const describe = useErrorText();
  // Tokens the desktop's keychain refused last only as long as this window.
  const keychainRefused = useKeychain((s) => s.refusal !== null);
  const closeButton = (
    <button type="button" className="small" onClick={close}>
      {t("close")}
    </button>
  );
  if (panel?.kind === "new" || panel?.kind === "current")
    return (
      <div className="parcel-share" data-testid="parcel-share">
        <div className="card-head">
          <h3>{t(panel.kind === "new" ? "newShare" : "currentShare")}</h3>
          {closeButton}
        </div>
        <SharePanel share={panel.share} again={!keychainRefused} />
      </div>
    );
  if (panel?.kind === "noKey" || panel?.kind === "error")
    return (
      <Notice kind="info" action={closeButton}>
        {panel.kind === "noKey" ? t("codeNoKey") : describe(panel.error)}
      </Notice>
    );
  return null;
}

/** Show code, new code and revoke; the last two ask first, in the same row. */
function OwnerButtons({ parcel, name, a }: { parcel: Parcel; name: string; a: OwnerActions }) {
  const t = useT(mineDict);
  const { confirm, setConfirm, busy } = a;
  return (
    <div className="button-row" role="group" aria-label={t("actionsFor", { name })}>
      {confirm ? (
        <>
          <span>{confirm === "revoke" ? t("revokeConfirm") : t("newCodeConfirm")}</span>
          <button
            type="button"
            className={confirm === "revoke" ? "danger" : "primary"}
            disabled={busy}
            onClick={() => void a.act(confirm)}
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
            <>
              <button
                type="button"
                title={t("showCodeHint")}
                disabled={busy || a.panel?.kind === "current"}
                onClick={() => void a.showCode()}
              >
                {t("showCode")}
              </button>
              <button type="button" title={t("newCodeHint")} onClick={() => setConfirm("code")}>
                {t("newCode")}
              </button>
            </>
          ) : null}
          <button type="button" className="danger" onClick={() => setConfirm("revoke")}>
            {t("revoke")}
          </button>
        </>
      )}
    </div>
  );
}

export function ParcelCard({ parcel, onChanged }: { parcel: Parcel; onChanged(p?: Parcel): void }) {
  const t = useT(mineDict);
  const lang = useApp((s) => s.lang);
  const describe = useErrorText();
  const a = useOwnerActions(parcel, onChanged);
  const live =
    parcel.state === "published" || parcel.state === "uploading" || parcel.state === "review";
  const name = useParcelName()(parcel);
  return (
    <li className={`parcel-card card state-${parcel.state}`} aria-label={t("parcelOf", { name })}>
      <ParcelSummary parcel={parcel} />
      <ParcelFacts parcel={parcel} live={live} />
      {parcel.state === "review" ? (
        <Notice kind="warn">
          <strong>{t("lockedTitle")}</strong>
          {lang === "zh-CN" ? "" : " "}
          {t("reviewHint")}
        </Notice>
      ) : null}
      <ShareResult panel={a.panel} close={() => a.setPanel(null)} />
      <Notice kind="error">
        {a.error ? describe(a.error) : a.refused ? t("newCodeRefused") : null}
      </Notice>
      {live ? <OwnerButtons parcel={parcel} name={name} a={a} /> : null}
    </li>
  );
}
