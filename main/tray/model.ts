import type { LanEntry } from "../entries/entries.js";
import type { Translate } from "../i18n.js";

/**
 * The tray menu as plain data. The wiring turns each item into an Electron menu item and each
 * `action` into what it does; everything the menu says and allows is decided (and tested) here.
 */

export type ServicesState = "starting" | "ready" | "restarting" | "failed";
export type CoreState = "online" | "offline" | "not_installed";
export type OpenArea = "window" | "send" | "mine" | "admin" | "proxy" | "settings";

export interface TrayState {
  services: ServicesState;
  /** Meaningful only while the services are ready. */
  core: CoreState;
  /** The node the proxy traffic goes through now. */
  node: string | null;
  /** LAN entries; `qr` says whether a QR code can be shown for them. */
  entries: Array<LanEntry & { qr: boolean }>;
  /** Chosen addresses this computer does not have now. */
  missing: string[];
  /** The operator chose addresses (rather than "all detected"). */
  chosen: boolean;
  /** The inbox: closed, or open until `until` (a time said in the operator's language). */
  inbox?: { open: false } | { open: true; until: string; url: string };
}

export type TrayAction =
  | { type: "open"; area: OpenArea }
  | { type: "copy"; url: string }
  | { type: "qr"; url: string }
  | { type: "core"; command: "start" | "stop" | "restart" }
  | { type: "inbox"; command: "open" | "close" }
  | { type: "quit" };

export interface TrayItem {
  type: "normal" | "separator" | "submenu";
  /** Stable and unique in the menu (e.g. for tests and accessibility tools). */
  id: string;
  label: string;
  enabled: boolean;
  action: TrayAction | null;
  submenu?: TrayItem[];
}

/** Menus cut long labels; a node name from a feed can be anything. */
const MAX_LABEL = 60;

function clip(text: string): string {
  // Control and bidi characters could hide or reorder what the label says.
  const clean = text.replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, " ").trim();
  return clean.length > MAX_LABEL ? `${clean.slice(0, MAX_LABEL - 1)}…` : clean;
}

function status(id: string, label: string): TrayItem {
  return { type: "normal", id, label, enabled: false, action: null };
}

function act(id: string, label: string, action: TrayAction, enabled = true): TrayItem {
  return { type: "normal", id, label, enabled, action };
}

function separator(id: string): TrayItem {
  return { type: "separator", id, label: "", enabled: true, action: null };
}

/** The lines saying how things are: services, proxy core, node. */
export function statusLines(state: TrayState, t: Translate): string[] {
  const lines = [t(`tray.services.${state.services}`)];
  if (state.services !== "ready") {
    lines.push(t("tray.core.waiting"));
    return lines;
  }
  if (state.core === "not_installed") lines.push(t("tray.core.notInstalled"));
  else if (state.core === "offline") lines.push(t("tray.core.offline"));
  else {
    lines.push(t("tray.core.online"));
    lines.push(state.node ? t("tray.node", { node: clip(state.node) }) : t("tray.noNode"));
  }
  return lines;
}

function lanItems(state: TrayState, t: Translate): TrayItem[] {
  const items: TrayItem[] = [status("lan.title", t("tray.lan"))];
  const urls = state.entries.flatMap((e) => [
    { url: e.http, qr: e.qr },
    ...(e.https ? [{ url: e.https, qr: e.qr }] : []),
  ]);
  for (const { url, qr } of urls) {
    items.push({
      type: "submenu",
      id: `lan:${url}`,
      label: url,
      enabled: true,
      action: null,
      submenu: [
        act(`lan.copy:${url}`, t("tray.lan.copy"), { type: "copy", url }),
        act(`lan.qr:${url}`, t("tray.lan.qr"), { type: "qr", url }, qr),
      ],
    });
  }
  for (const address of state.missing)
    items.push(status(`lan.missing:${address}`, t("tray.lan.missing", { address })));
  if (urls.length === 0 && state.services === "ready")
    items.push(status("lan.none", t(state.chosen ? "tray.lan.noneChosen" : "tray.lan.none")));
  return items;
}

/** The inbox: whether it is open, and opening, closing or showing its QR code. */
function inboxItems(state: TrayState, t: Translate): TrayItem[] {
  const inbox = state.inbox ?? { open: false };
  if (!inbox.open)
    return [
      status("inbox.state", t("tray.inbox.closed")),
      act("inbox.open", t("tray.inbox.openHour"), { type: "inbox", command: "open" }),
    ];
  return [
    status("inbox.state", t("tray.inbox.open", { time: inbox.until })),
    act("inbox.qr", t("tray.inbox.show"), { type: "qr", url: inbox.url }),
    act("inbox.close", t("tray.inbox.close"), { type: "inbox", command: "close" }),
  ];
}

/** The tray's context menu for the current state. */
export function trayMenuModel(state: TrayState, t: Translate): TrayItem[] {
  const ready = state.services === "ready";
  const coreReady = ready && state.core !== "not_installed";
  const lines = statusLines(state, t).map((line, i) => status(`status.${i}`, line));
  const open = (area: OpenArea, label: string, enabled: boolean): TrayItem =>
    act(`open.${area}`, label, { type: "open", area }, enabled);
  const core = (command: "start" | "stop" | "restart", enabled: boolean): TrayItem =>
    act(`core.${command}`, t(`tray.core.${command}`), { type: "core", command }, enabled);
  return [
    ...lines,
    separator("sep.status"),
    ...(ready ? lanItems(state, t) : []),
    ...(ready ? [separator("sep.lan")] : []),
    ...(ready ? [...inboxItems(state, t), separator("sep.inbox")] : []),
    open("window", t("tray.open.window"), true),
    open("send", t("tray.open.send"), ready),
    open("mine", t("tray.open.mine"), ready),
    open("admin", t("tray.open.admin"), ready),
    open("proxy", t("tray.open.proxy"), ready),
    open("settings", t("tray.open.settings"), true),
    separator("sep.open"),
    core("start", coreReady && state.core === "offline"),
    core("stop", coreReady && state.core === "online"),
    core("restart", coreReady && state.core === "online"),
    separator("sep.core"),
    act("quit", t("tray.quit"), { type: "quit" }),
  ];
}

/**
 * The tray icon's tooltip: the app, then how things are. Windows shows at most 127 characters.
 */
export function trayTooltip(state: TrayState, t: Translate): string {
  const [services, core, node] = statusLines(state, t);
  const coreText =
    node && state.node ? t("tray.tooltip.node", { core, node: clip(state.node) }) : core;
  const text = `${t("app.name")} — ${services}\n${coreText}`;
  return text.length > 127 ? `${text.slice(0, 126)}…` : text;
}
