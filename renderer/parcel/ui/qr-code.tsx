import { useEffect, useState } from "react";
import { useT } from "../i18n.js";
import { uiDict } from "./i18n.js";

/**
 * A QR code of `text` as a data-URL image (CSP allows img data:). The `qrcode` library is
 * loaded on first use, so pages without a QR code never download it. Always dark on white:
 * phone cameras read inverted codes badly, so dark mode keeps a white quiet zone.
 */
export function QrCode({ text, size = 192 }: { text: string; size?: number }) {
  const t = useT(uiDict);
  const [src, setSrc] = useState("");
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let alive = true;
    setFailed(false);
    import("qrcode")
      .then((qr) =>
        qr.toDataURL(text, {
          errorCorrectionLevel: "M",
          margin: 2,
          width: size * 2,
          color: { dark: "#000000", light: "#ffffff" },
        }),
      )
      .then((url) => alive && setSrc(url))
      .catch(() => alive && setFailed(true));
    return () => {
      alive = false;
    };
  }, [text, size]);
  if (failed) return <p className="muted">{t("qrFailed")}</p>;
  return (
    <img
      className="qr"
      src={src || undefined}
      width={size}
      height={size}
      alt={t("qrOf", { url: text })}
      data-qr-text={text}
    />
  );
}
