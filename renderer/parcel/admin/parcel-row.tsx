import { formatBytes, formatDuration } from "../../shared/format.js";
import { useApp } from "../store.js";
import type {
  AdminParcelView as AdminParcel,
  ParcelState,
} from "../../../server/contract/parcel-views.js";
import { useA } from "./i18n.js";
import { NAMES_SHOWN, parcelName } from "./parcel-name.js";
import { ParcelFiles } from "./parcel-files.js";
import { StateBadge, formatTime } from "./ui.js";

/** States in which a parcel still holds files someone can pick up (or will). */
export const LIVE: ParcelState[] = ["uploading", "published", "review"];

/** The names cell: each shown name on its own line (cut with … when long), then "+N more". */
function FileNames({ parcel }: { parcel: AdminParcel }) {
  const t = useA();
  if (parcel.files.length === 0) return <span className="muted">{t("parcels.noFilesShort")}</span>;
  const shown = parcel.files.slice(0, NAMES_SHOWN);
  const rest = parcel.files.length - shown.length;
  return (
    <span className="adm-names" title={parcel.files.map((f) => f.name).join("\n")}>
      {shown.map((f) => (
        <span key={f.id} className="adm-name">
          {f.name}
        </span>
      ))}
      {rest > 0 ? (
        <span className="muted adm-more">{t("parcels.moreFiles", { n: rest })}</span>
      ) : null}
    </span>
  );
}

/**
 * When the parcel expires. A live one: the time and how long is left; an expired one: when it
 * expired; one used up or revoked: only that it ended (its expiry no longer means anything).
 */
function Expiry({ parcel, now }: { parcel: AdminParcel; now: number }) {
  const t = useA();
  const lang = useApp((s) => s.lang);
  if (parcel.state === "revoked" || parcel.state === "exhausted")
    return <span className="muted">{t("parcels.ended")}</span>;
  const live = LIVE.includes(parcel.state);
  return (
    <span>
      {formatTime(parcel.expires_at, lang)}
      {live && parcel.expires_at > now ? (
        <span className="muted adm-sub">
          {t(parcel.state === "uploading" ? "parcels.sessionEnds" : "parcels.inTime", {
            time: formatDuration(parcel.expires_at - now, lang),
          })}
        </span>
      ) : null}
    </span>
  );
}

/** Downloads left of a live parcel ("7 of 10"); of an ended one, how many were taken. */
function Downloads({ parcel }: { parcel: AdminParcel }) {
  const t = useA();
  if (LIVE.includes(parcel.state))
    return (
      <>{t("parcels.leftOf", { left: parcel.downloads_left, allowed: parcel.downloads_allowed })}</>
    );
  const taken = Math.max(0, parcel.downloads_allowed - parcel.downloads_left);
  return (
    <span>
      —<span className="muted adm-sub">{t("parcels.taken", { n: taken })}</span>
    </span>
  );
}

/** The row's buttons: show or hide its files, reissue one under review, delete a live one. */
function RowActions({
  parcel: p,
  expanded,
  busy,
  live,
  onToggle,
  onReissue,
  onDelete,
}: {
  parcel: AdminParcel;
  expanded: boolean;
  busy: boolean;
  live: boolean;
  onToggle(): void;
  onReissue(): void;
  onDelete(): void;
}) {
  const t = useA();
  return (
    <td className="adm-actions">
      <button
        type="button"
        className="small"
        aria-expanded={expanded}
        aria-controls={`files-${p.id}`}
        onClick={onToggle}
      >
        {t(expanded ? "parcels.hideFiles" : "parcels.showFiles")}
        <span className="sr-only"> {parcelName(p, t)}</span>
      </button>
      {p.state === "review" ? (
        <button type="button" className="small" disabled={busy} onClick={onReissue}>
          {t("parcels.reissue")}
          <span className="sr-only"> {parcelName(p, t)}</span>
        </button>
      ) : null}
      {live ? (
        <button type="button" className="small danger" disabled={busy} onClick={onDelete}>
          {t("parcels.delete")}
          <span className="sr-only"> {parcelName(p, t)}</span>
        </button>
      ) : null}
    </td>
  );
}

/** One parcel of the list, and its files below it when expanded. */
export function ParcelRow({
  parcel: p,
  expanded,
  busy,
  onToggle,
  onReissue,
  onDelete,
  onDeleteFile,
}: {
  parcel: AdminParcel;
  expanded: boolean;
  busy: boolean;
  onToggle(): void;
  onReissue(): void;
  onDelete(): void;
  onDeleteFile(file: { id: string; name: string }): void;
}) {
  const t = useA();
  const lang = useApp((s) => s.lang);
  const now = Math.floor(Date.now() / 1000);
  const live = LIVE.includes(p.state);
  const filesId = `files-${p.id}`;
  return (
    <>
      <tr data-testid="parcel-row" data-id={p.id}>
        <td data-label={t("parcels.files")} className="adm-col-names">
          <FileNames parcel={p} />
        </td>
        <td data-label={t("parcels.state")}>
          <StateBadge state={p.state} />
        </td>
        <td data-label={t("parcels.size")}>{formatBytes(p.bytes)}</td>
        <td data-label={t("parcels.owner")} className="adm-col-owner">
          {t(`owner.${p.owner}`)}
        </td>
        <td data-label={t("parcels.sent")} className="adm-col-sent">
          {p.sent_at === null ? (
            <span className="muted">{t("parcels.notSent")}</span>
          ) : (
            formatTime(p.sent_at, lang)
          )}
        </td>
        <td data-label={t("parcels.expires")}>
          <Expiry parcel={p} now={now} />
        </td>
        <td data-label={t("parcels.downloads")}>
          <Downloads parcel={p} />
        </td>
        <RowActions
          parcel={p}
          expanded={expanded}
          busy={busy}
          live={live}
          onToggle={onToggle}
          onReissue={onReissue}
          onDelete={onDelete}
        />
      </tr>
      {expanded ? (
        <tr className="adm-detail-row" id={filesId}>
          <td colSpan={8}>
            <ParcelFiles parcel={p} canDelete={live && !busy} onDelete={onDeleteFile} />
          </td>
        </tr>
      ) : null}
    </>
  );
}
