import { formatBytes } from "../../shared/format.js";
import { useT } from "../i18n.js";
import type { ParcelView as Parcel, Share } from "../../../server/contract/parcel-views.js";
import { SharePanel } from "../ui/share-panel.js";
import { useKeychain } from "../ui/tokens.js";
import { sendDict } from "./i18n.js";
import { useSend } from "./store.js";

/** The published parcel: code, QR, link, what was sent. */
export function DoneView({ result }: { result: Parcel & Share }) {
  const t = useT(sendDict);
  const reset = useSend((s) => s.reset);
  // The page published with the parcel's token, which this device keeps (see ui/tokens.ts):
  // My parcels can show the code again, unless the desktop's keychain refused the token.
  const keychainRefused = useKeychain((s) => s.refusal !== null);
  return (
    <section className="card send-done" aria-labelledby="send-done-title">
      <header className="card-head">
        <h2 id="send-done-title">✓ {t("sentTitle")}</h2>
      </header>
      <p className="muted">{t("sentLead")}</p>
      <SharePanel share={result} again={!keychainRefused} />
      <h3 className="files-title">{t("files")}</h3>
      <ul className="file-list">
        {result.files.map((f) => (
          <li key={f.id} className="file-row">
            <span className="file-name ellipsis" title={f.name}>
              {f.name}
            </span>
            <span className="file-size muted">{formatBytes(f.size)}</span>
          </li>
        ))}
      </ul>
      {result.has_password ? <p className="muted small">{t("passwordSet")}</p> : null}
      <div className="button-row">
        <button type="button" className="primary" onClick={reset}>
          {t("sendMore")}
        </button>
        <a className="button" href="#/mine">
          {t("seeMine")}
        </a>
      </div>
    </section>
  );
}
