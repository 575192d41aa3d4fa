import type { Share } from "../../../server/contract/parcel-views.js";
import { SharePanel } from "../ui/share-panel.js";
import { useA } from "./i18n.js";

/** The share a reissue answers: the new code, the link per entry with its QR code. */
export function ShareCard({
  name,
  share,
  onClose,
}: {
  name: string;
  share: Share;
  onClose(): void;
}) {
  const t = useA();
  return (
    <section className="adm-share" aria-labelledby="adm-share-title" data-testid="reissue-share">
      <header className="card-head">
        <h3 id="adm-share-title">{t("share.title", { name })}</h3>
        <button type="button" className="small" onClick={onClose}>
          {t("common.close")}
        </button>
      </header>
      <SharePanel share={share} />
    </section>
  );
}
