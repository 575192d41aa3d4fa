import { useEffect, useRef } from "react";
import type { OpenArea } from "../../preload/contract.js";
import { followDesktopAppearance } from "../shared/desktop-appearance.js";
import { LangThemePickers } from "../shared/pickers.js";
import { useThemeEffect } from "../shared/theme.js";
import DesktopScreen from "../parcel/desktop/index.js";
import { desktopDict } from "../parcel/desktop/i18n.js";
import { useT } from "../parcel/i18n.js";
import { shellDict } from "../parcel/shell-i18n.js";
import { useApp } from "../parcel/store.js";

/**
 * The app page around the Desktop screen: the same look as the parcel pages, a bar that takes
 * the window back to the services' pages (the main process loads them), and the screen.
 */

function go(area: OpenArea): void {
  void window.gatehouse?.app.open(area);
}

function Bar() {
  const t = useT(shellDict);
  const d = useT(desktopDict);
  const { lang, setLang, theme, setTheme } = useApp();
  const labels = {
    language: t("language"),
    theme: t("theme"),
    system: t("themeSystem"),
    light: t("themeLight"),
    dark: t("themeDark"),
  };
  const areas: Array<[OpenArea, string]> = [
    ["send", t("send")],
    ["mine", t("mine")],
    ["admin", t("admin")],
    ["proxy", d("proxyConsole")],
  ];
  return (
    <header className="topbar">
      <span className="brand">{t("title")}</span>
      <nav className="areas" aria-label={t("navigation")}>
        {areas.map(([area, label]) => (
          <a
            key={area}
            href={`#${area}`}
            onClick={(e) => {
              e.preventDefault();
              go(area);
            }}
          >
            {label}
          </a>
        ))}
        <a href="#" aria-current="page" onClick={(e) => e.preventDefault()}>
          {t("desktop")}
        </a>
      </nav>
      <div className="toolbar">
        <LangThemePickers {...{ lang, setLang, theme, setTheme, labels }} />
      </div>
    </header>
  );
}

export function DesktopPage() {
  const t = useT(shellDict);
  const { lang, theme } = useApp();
  const mainRef = useRef<HTMLElement>(null);
  useThemeEffect(theme);
  useEffect(() => followDesktopAppearance(useApp), []);
  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = `${t("desktop")} · ${t("title")}`;
  }, [lang, t]);
  return (
    <div className="parcel-app">
      <Bar />
      <main className="parcel-main" id="main" ref={mainRef} tabIndex={-1}>
        <DesktopScreen />
      </main>
    </div>
  );
}
