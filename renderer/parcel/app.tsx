import { lazy, Suspense, useEffect, useRef, type ComponentType } from "react";
import { followDesktopAppearance } from "../shared/desktop-appearance.js";
import { LangThemePickers } from "../shared/pickers.js";
import { useThemeEffect } from "../shared/theme.js";
import { useT } from "./i18n.js";
import { useRoute, type Area } from "./route.js";
import { shellDict, type ShellKey } from "./shell-i18n.js";
import { useApp } from "./store.js";
import { adoptStoredTokens } from "./ui/tokens.js";

/**
 * Each area is its own chunk: a phone opening a pickup link loads the shell and the pickup
 * screen only. Every area module default-exports its screen, which receives the rest of the
 * route (the pickup code, or the admin tab).
 */
export interface AreaProps {
  rest: string;
}
const AREAS: Record<Area, React.LazyExoticComponent<ComponentType<AreaProps>>> = {
  send: lazy(() => import("./send/index.js")),
  mine: lazy(() => import("./mine/index.js")),
  pickup: lazy(() => import("./pickup/index.js")),
  inbox: lazy(() => import("./inbox/index.js")),
  admin: lazy(() => import("./admin/index.js")),
};
const NAV: Array<{ area: Area; href: string; key: ShellKey }> = [
  { area: "send", href: "#/", key: "send" },
  { area: "pickup", href: "#/pickup", key: "pickup" },
  { area: "mine", href: "#/mine", key: "mine" },
  { area: "admin", href: "#/admin", key: "admin" },
];

function Toolbar() {
  const t = useT(shellDict);
  const { lang, setLang, theme, setTheme } = useApp();
  const labels = {
    language: t("language"),
    theme: t("theme"),
    system: t("themeSystem"),
    light: t("themeLight"),
    dark: t("themeDark"),
  };
  return (
    <div className="toolbar">
      <LangThemePickers {...{ lang, setLang, theme, setTheme, labels }} />
    </div>
  );
}

export function App() {
  const t = useT(shellDict);
  const route = useRoute();
  const { lang, theme, loadPolicy } = useApp();
  const mainRef = useRef<HTMLElement>(null);
  const lastArea = useRef<Area>(route.area);
  useThemeEffect(theme);
  useEffect(() => {
    void loadPolicy();
  }, [loadPolicy]);
  // Desktop app only (each does nothing in a browser): language and theme are the desktop's
  // settings, and tokens an older build left in localStorage move to the keychain.
  useEffect(() => followDesktopAppearance(useApp), []);
  useEffect(() => {
    void adoptStoredTokens();
  }, []);
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  useEffect(() => {
    document.title = `${t(route.area)} · ${t("title")}`;
    // After navigating, keyboard and screen-reader users land on the new screen.
    if (route.area !== lastArea.current) mainRef.current?.focus({ preventScroll: true });
    lastArea.current = route.area;
  }, [route.area, t]);
  const Screen = AREAS[route.area];
  return (
    <div className="parcel-app">
      <header className="topbar">
        <a
          className="skip"
          href="#main"
          onClick={(e) => (e.preventDefault(), mainRef.current?.focus())}
        >
          {t("skip")}
        </a>
        <a className="brand" href="#/">
          {t("title")}
        </a>
        <nav className="areas" aria-label={t("navigation")}>
          {/* Recipients opening a pickup or inbox link have no use for the administrator's sign-in. */}
          {NAV.filter(
            (n) => n.area !== "admin" || (route.area !== "pickup" && route.area !== "inbox"),
          ).map((n) => (
            <a key={n.area} href={n.href} aria-current={n.area === route.area ? "page" : undefined}>
              {t(n.key)}
            </a>
          ))}
          {/* Desktop app only: its own screen is an app page, which the main process shows. */}
          {window.gatehouse ? (
            <a
              href="#/desktop"
              onClick={(e) => {
                e.preventDefault();
                void window.gatehouse?.app.open("settings");
              }}
            >
              {t("desktop")}
            </a>
          ) : null}
        </nav>
        <Toolbar />
      </header>
      <main className="parcel-main" id="main" ref={mainRef} tabIndex={-1}>
        <Suspense
          fallback={
            <p role="status" className="muted">
              {t("loading")}
            </p>
          }
        >
          <Screen rest={route.rest} />
        </Suspense>
      </main>
    </div>
  );
}
