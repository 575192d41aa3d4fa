import "./ui.css";
import { useEffect, useRef, useState } from "react";
import { useT } from "../i18n.js";
import { uiDict } from "./i18n.js";

/** Clipboard API where allowed (secure contexts); a hidden textarea and execCommand elsewhere (plain http on the LAN). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the old way
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  area.style.left = "-1000px";
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/** A button that copies `text` and says so for two seconds (announced to screen readers). */
export function CopyButton({
  text,
  label,
  className = "",
}: {
  text: string;
  /** Visible label, e.g. "Copy link"; defaults to "Copy". */
  label?: string;
  className?: string;
}) {
  const t = useT(uiDict);
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const onClick = async () => {
    const ok = await copyText(text);
    setState(ok ? "copied" : "failed");
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState("idle"), ok ? 2000 : 5000);
  };
  return (
    <span className="copy">
      <button type="button" className={`copy-button ${className}`.trim()} onClick={onClick}>
        {state === "copied" ? `✓ ${t("copied")}` : (label ?? t("copy"))}
      </button>
      <span className={state === "failed" ? "copy-failed" : "sr-only"} role="status">
        {state === "copied" ? t("copied") : state === "failed" ? t("copyFailed") : ""}
      </span>
    </span>
  );
}
