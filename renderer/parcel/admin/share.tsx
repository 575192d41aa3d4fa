import type { Share } from "../../../server/contract/parcel-views.js";
import { SharePanel } from "../ui/share-panel.js";
import { useA } from "./i18n.js";

/**
 * The share a reissue answers: the new code, the link per entry with its QR code. Once its
 * parcel is deleted or has ended, the code no longer works: the card says so and shows
 * neither the code nor its links, so nobody hands out a dead code from it.
 */
export function ShareCard({
  name,
  share,
  withdrawn,
  onClose,
}: {
  name: string;
  share: Share;
  withdrawn: "deleted" | "ended" | null;
  onClose(): void;
}) {
  const t = useA();
  return (
    <section
      className={`adm-share${withdrawn ? " adm-share-withdrawn" : ""}`}
      aria-labelledby="adm-share-title"
      data-testid="reissue-share"
    >
      <header className="card-head">
        <h3 id="adm-share-title">{t("share.title", { name })}</h3>
        <button type="button" className="small" onClick={onClose}>
          {t("common.close")}
        </button>
      </header>
      {withdrawn ? (
        <p className="adm-alert adm-alert-info" role="status">
          {t(withdrawn === "deleted" ? "share.withdrawn" : "share.ended")}
        </p>
      ) : (
        <SharePanel share={share} />
      )}
    </section>
  );
}
