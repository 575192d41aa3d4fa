import { formatBytes } from "../../shared/format.js";
import { useApp } from "../store.js";
import type { AdminParcelView as AdminParcel } from "../../../server/contract/parcel-views.js";
import { CopyButton } from "../ui/copy-button.js";
import { useA } from "./i18n.js";
import { parcelName } from "./parcel-name.js";
import { formatTime } from "./ui.js";

const LIVE_STATES: readonly string[] = ["uploading", "published", "review"];

/** The expanded part of a parcel row: its files (each deletable) and the remaining facts. */
export function ParcelFiles({
  parcel,
  canDelete,
  onDelete,
}: {
  parcel: AdminParcel;
  canDelete: boolean;
  onDelete(file: { id: string; name: string }): void;
}) {
  const t = useA();
  const lang = useApp((s) => s.lang);
  // The files of an ended parcel can no longer be picked up, whatever state their upload had.
  const ended = !LIVE_STATES.includes(parcel.state);
  return (
    <div className="adm-detail">
      <dl className="adm-facts adm-facts-small">
        <div>
          <dt>{t("parcels.fullId")}</dt>
          <dd className="mono adm-id">
            {parcel.id} <CopyButton text={parcel.id} className="small" />
          </dd>
        </div>
        <div>
          <dt>{t("parcels.owner")}</dt>
          <dd>{t(`owner.${parcel.owner}`)}</dd>
        </div>
        <div>
          <dt>{t("parcels.created")}</dt>
          <dd>{formatTime(parcel.created_at, lang)}</dd>
        </div>
        <div>
          <dt>{t("parcels.sent")}</dt>
          <dd>
            {parcel.sent_at === null ? t("parcels.notSent") : formatTime(parcel.sent_at, lang)}
          </dd>
        </div>
        <div>
          <dt>{t("parcels.password")}</dt>
          <dd>{t(parcel.has_password ? "common.yes" : "common.no")}</dd>
        </div>
        <div>
          <dt>{t("parcels.renew")}</dt>
          <dd>{t(parcel.renew ? "common.yes" : "common.no")}</dd>
        </div>
      </dl>
      {parcel.files.length === 0 ? (
        <p className="muted">{t("parcels.noFiles")}</p>
      ) : (
        <ul
          className="adm-files"
          aria-label={t("parcels.filesOf", { name: parcelName(parcel, t) })}
        >
          {parcel.files.map((f) => (
            <li key={f.id} data-testid="parcel-file">
              <span className="adm-file-name" title={f.name}>
                {f.name}
              </span>
              <span className="muted">{formatBytes(f.size)}</span>
              {ended ? (
                <span className="adm-file-state adm-file-ended">
                  {t(parcel.state === "revoked" ? "file.removed" : "file.gone")}
                </span>
              ) : (
                <span className={`adm-file-state adm-file-${f.state}`}>{t(`file.${f.state}`)}</span>
              )}
              {canDelete ? (
                <button type="button" className="small danger" onClick={() => onDelete(f)}>
                  {t("parcels.deleteFile")}
                  <span className="sr-only"> {f.name}</span>
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
