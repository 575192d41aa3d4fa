import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { followDesktopAppearance } from "../../shared/desktop-appearance.js";
import { LangThemePickers } from "../../shared/pickers.js";
import "./desktop.js";
import { LoginScreen, SetupScreen } from "../auth/auth.js";
import { useT, type Key } from "../i18n.js";
import { ROUTES, useRoute, type Route } from "../route.js";
import { ConnectionsScreen } from "../connections/index.js";
import { DashboardScreen } from "../dashboard/index.js";
import { DevicesScreen } from "../devices/index.js";
import { LogsScreen } from "../logs/index.js";
import { NodesScreen } from "../nodes/index.js";
import { ProbationBanner } from "./probation.js";
import { RulesScreen } from "../rules/index.js";
import { SettingsScreen } from "../settings/index.js";
import { SubscriptionsScreen } from "../subscriptions/index.js";
import { SystemScreen } from "../system/index.js";
import { useApp } from "../store.js";
import { useThemeEffect } from "./theme.js";

const SCREENS: Record<Route, () => React.JSX.Element> = {
  dashboard: DashboardScreen,
  subscriptions: SubscriptionsScreen,
  nodes: NodesScreen,
  rules: RulesScreen,
  settings: SettingsScreen,
  devices: DevicesScreen,
  connections: ConnectionsScreen,
  logs: LogsScreen,
  system: SystemScreen,
};

function Toolbar({ signedIn }: { signedIn: boolean }) {
  const t = useT();
  const { lang, setLang, theme, setTheme, logout } = useApp();
  const labels = {
    language: t("app.language"),
    theme: t("app.theme"),
    system: t("app.themeSystem"),
    light: t("app.themeLight"),
    dark: t("app.themeDark"),
  };
  return (
    <div className="toolbar">
      <LangThemePickers {...{ lang, setLang, theme, setTheme, labels }} />
      {signedIn ? (
        <button type="button" onClick={() => void logout()}>
          {t("app.logout")}
        </button>
      ) : null}
    </div>
  );
}

/** The width at and below which the menu folds behind a button (matches the style sheet). */
const PHONE = "(max-width: 760px)";

function usePhone(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const q = window.matchMedia(PHONE);
      q.addEventListener("change", onChange);
      return () => q.removeEventListener("change", onChange);
    },
    () => window.matchMedia(PHONE).matches,
  );
}

/**
 * On a phone the sections, language, theme and log-out fold behind one menu button, so the
 * screen's own content starts right under a one-line bar. It closes on a new screen, on a
 * change of width, and on Escape (the focus back on its button).
 */
function usePhoneMenu(route: Route, phone: boolean) {
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  useEffect(() => setMenuOpen(false), [route, phone]);
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setMenuOpen(false);
      menuButton.current?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [menuOpen]);
  return { menuOpen, setMenuOpen, menuButton };
}

/** The bar's height, so what sticks below it (the confirm-or-revert banner) never covers it. */
function useBarHeight() {
  const barRef = useRef<HTMLElement>(null);
  useEffect(() => {
    const bar = barRef.current;
    if (!bar) return;
    const root = document.documentElement;
    const measure = () => root.style.setProperty("--bar-height", `${bar.offsetHeight}px`);
    measure();
    const watch = new ResizeObserver(measure);
    watch.observe(bar);
    return () => watch.disconnect();
  }, []);
  return barRef;
}

/** The window's title names the screen; after navigating, the focus goes to the new screen. */
function useScreenFocus(route: Route) {
  const t = useT();
  const mainRef = useRef<HTMLElement>(null);
  useEffect(() => {
    document.title = `${t(`nav.${route}` as Key)} · ${t("app.title")}`;
  }, [route, t]);
  const firstRoute = useRef<string>(route);
  useEffect(() => {
    // After navigating, keyboard and screen-reader users land on the new screen, not the menu.
    if (route !== firstRoute.current) mainRef.current?.focus({ preventScroll: true });
    firstRoute.current = "";
  }, [route]);
  return mainRef;
}

type Menu = ReturnType<typeof usePhoneMenu>;

function SideNav({ route, phone, menu }: { route: Route; phone: boolean; menu: Menu }) {
  const t = useT();
  const { menuOpen, setMenuOpen } = menu;
  return (
    <nav
      id="console-nav"
      className={`sidenav${phone ? (menuOpen ? " sidenav-phone open" : " sidenav-phone") : ""}`}
      aria-label={t("app.navigation")}
    >
      <ul>
        {ROUTES.map((r) => (
          <li key={r}>
            <a
              href={`#/${r}`}
              aria-current={r === route ? "page" : undefined}
              onClick={() => setMenuOpen(false)}
            >
              {t(`nav.${r}` as Key)}
            </a>
          </li>
        ))}
      </ul>
      {phone ? <Toolbar signedIn /> : null}
    </nav>
  );
}

function MenuButton({ menu }: { menu: Menu }) {
  const t = useT();
  const { menuOpen, setMenuOpen } = menu;
  return (
    <button
      ref={menu.menuButton}
      type="button"
      className="menu-button"
      aria-expanded={menuOpen}
      aria-controls="console-nav"
      onClick={() => setMenuOpen(!menuOpen)}
    >
      <span aria-hidden="true">{menuOpen ? "✕" : "☰"}</span> {t("app.menu")}
    </button>
  );
}

function Console() {
  const t = useT();
  const route = useRoute();
  const phone = usePhone();
  const menu = usePhoneMenu(route, phone);
  const Screen = SCREENS[route];
  const mainRef = useScreenFocus(route);
  const barRef = useBarHeight();
  return (
    <div className="layout">
      <header className="topbar" ref={barRef}>
        <a
          className="skip"
          href="#main"
          onClick={(e) => (e.preventDefault(), mainRef.current?.focus())}
        >
          {t("app.skip")}
        </a>
        {phone ? <MenuButton menu={menu} /> : null}
        <span className="brand">{t("app.title")}</span>
        {phone ? null : <Toolbar signedIn />}
      </header>
      {phone && menu.menuOpen ? (
        <div className="menu-backdrop" aria-hidden="true" onClick={() => menu.setMenuOpen(false)} />
      ) : null}
      <SideNav route={route} phone={phone} menu={menu} />
      <main className="content" id="main" ref={mainRef} tabIndex={-1}>
        <ProbationBanner />
        <h1>{t(`nav.${route}` as Key)}</h1>
        <Screen />
      </main>
    </div>
  );
}

export function App() {
  const t = useT();
  const { phase, boot, lang } = useApp();
  useThemeEffect();
  useEffect(() => {
    void boot();
  }, [boot]);
  // In the desktop app, language and theme are the desktop's settings (both consoles).
  useEffect(() => followDesktopAppearance(useApp), []);
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);

  if (phase === "ready") return <Console />;
  return (
    <>
      <header className="topbar">
        <span className="brand">{t("app.title")}</span>
        <Toolbar signedIn={false} />
      </header>
      {phase === "setup" ? <SetupScreen /> : null}
      {phase === "login" ? <LoginScreen /> : null}
      {phase === "loading" ? (
        <main className="auth">
          <p role="status">{t("common.loading")}</p>
        </main>
      ) : null}
      {phase === "unreachable" ? (
        <main className="auth">
          <div className="auth-box">
            <p role="alert">{t("error.unreachable")}</p>
            <button type="button" onClick={() => void boot()}>
              {t("common.retry")}
            </button>
          </div>
        </main>
      ) : null}
    </>
  );
}
