import { areaUrl, parcelOrigins, serviceOrigins } from "./areas.js";
import type { DesktopAppOptions, EntriesView } from "./desktop-types.js";
import { createDesktopInbox, inboxTray, lanNameEntry } from "./desktop-inbox.js";
import { readSetupToken } from "./setup-token.js";
import { mdnsWanted } from "../../server/config.js";
import { INBOX_DEFAULT_MINUTES } from "../../server/contract/inbox-limits.js";
import { findLanName } from "../../server/lan-name.js";
import { operatorCall, type OperatorCallDeps } from "./operator-calls.js";
import type { ReadyInfo, ServiceEvent } from "../../server/desktop/protocol.js";
import { followEntries, type EntryFollower } from "../entries/watch.js";
import type { EntryState, LanEntry } from "../entries/entries.js";
import type { HostStatus } from "../host/service-host.js";
import { resolveLanguage, translator, type DesktopLanguage } from "../i18n.js";
import { notificationFor } from "../notify/notifications.js";
import type { InboxKeeper } from "../inbox/keeper.js";
import type { OperatorSignIn } from "../operator/types.js";
import { keptParcelIds } from "../secrets/keychain.js";
import { readSettings, applySettingsPatch, type ApplyResult } from "../settings/store.js";
import type { DesktopSettings } from "../settings/schema.js";
import { servicesArgs } from "../settings/services-args.js";
import {
  trayMenuModel,
  trayTooltip,
  type OpenArea,
  type TrayAction,
  type TrayState,
} from "../tray/model.js";

export type { DesktopAppOptions, DesktopShell, EntriesView } from "./desktop-types.js";

/**
 * The desktop app without Electron: it starts the services, signs the window in as the
 * operator, follows the LAN addresses, turns service events into notifications, keeps the
 * tray's model and applies settings. `main/index.ts` gives it a `DesktopShell` made of
 * Electron calls; tests give it one that records, and drive it against the real services.
 */

export class DesktopApp {
  private readonly o: DesktopAppOptions;
  private follower: EntryFollower | null = null;
  private signIn: OperatorSignIn | null = null;
  /** What the services said when they were last ready (for signing in again). */
  private ready: ReadyInfo | null = null;
  /** The area the window shows once the services are ready. */
  private area: OpenArea = "window";
  private resetTried = false;
  private stopped = false;
  /** `<hostname>.local` when it resolves to this machine (found at start), else null. */
  private lanName: string | null = null;
  private readonly calls: OperatorCallDeps;
  /** The inbox: opened and closed from the Desktop screen and the tray; saves deliveries. */
  readonly inbox: InboxKeeper;

  constructor(options: DesktopAppOptions) {
    this.o = options;
    this.calls = {
      info: () => options.host.info,
      session: (service) => this.signIn?.[service] ?? null,
      signInAgain: async () => {
        if (!this.ready) return false;
        this.signIn = await options.operator.signIn(this.ready);
        return true;
      },
      fetch: options.fetch,
      log: (line) => options.shell.log(line),
    };
    this.inbox = createDesktopInbox({
      ...this.calls,
      dataDir: options.dataDir,
      downloadsDir: options.downloadsDir,
      settings: () => this.settings,
      language: () => this.language,
      notify: (n) => options.shell.notify(n),
      changed: () => this.updateTray(),
    });
    options.host.on("status", (s) => void this.onStatus(s));
    options.host.on("info", () => this.updateTray());
    options.host.on("event", (e) => this.onEvent(e));
  }

  get settings(): DesktopSettings {
    return readSettings(this.o.settings);
  }

  get language(): DesktopLanguage {
    return resolveLanguage(this.settings.language, this.o.systemLocale);
  }

  /** The services' own origins: the only pages the window may show and IPC may answer. */
  origins(): string[] {
    return serviceOrigins(this.o.host.info);
  }

  /** The parcel service's own origins: where the window's owner requests may carry a token. */
  parcelOrigins(): string[] {
    return parcelOrigins(this.o.host.info);
  }

  entries(): EntryState | null {
    return this.follower?.state() ?? null;
  }

  /** What the settings screen shows about LAN addresses: every interface and the choice. */
  entriesView(): EntriesView {
    const state = this.entries();
    return {
      interfaces: this.o.interfaces.current,
      chosen: this.settings.entries,
      lan: state?.lan ?? [],
      lanName: this.lanEntries()[0] ?? null,
      missing: state?.missing ?? [],
    };
  }

  /**
   * The proxy console's one-time setup token, while it has no administrator: the window fills
   * it in itself (when the operator could not set the console up, e.g. without a keychain).
   */
  setupToken(): string | null {
    return readSetupToken(this.o.dataDir);
  }

  /** Makes exactly these interfaces (by name) the LAN entries. */
  async chooseInterfaces(names: string[]): Promise<ApplyResult> {
    const known = this.o.interfaces.current;
    const unknown = names.filter((n) => !known.some((i) => i.name === n));
    if (unknown.length > 0)
      return {
        ok: false,
        errors: [
          {
            field: "entries",
            code: "entries",
            message: translator(this.language)("entries.unknown", { names: unknown.join(", ") }),
          },
        ],
      };
    // Kept by name, so a new DHCP lease on the same interface follows without choosing again.
    return this.changeSettings({ entries: [...new Set(names)] });
  }

  private args(): string[] {
    return servicesArgs(this.settings, this.o.env ?? process.env, {
      dataDir: this.o.dataDir,
      detected: this.o.interfaces.current,
    });
  }

  start(): void {
    this.o.shell.showMessage("starting", translator(this.language)("app.starting"));
    this.follower = followEntries(
      this.o.interfaces,
      () => {
        const s = this.settings;
        return {
          chosen: s.entries,
          ports: { parcel: s.parcelPort, https: s.parcelHttpsPort },
          https: s.httpsEnabled,
          host: s.host,
        };
      },
      (state) => this.onEntries(state),
    );
    this.o.host.setArgs(this.args());
    this.o.host.start();
    this.updateTray();
    // As the services do (they add the same name to their entries); off where mDNS is off.
    if (mdnsWanted(this.o.env ?? process.env))
      void findLanName().then((name) => {
        this.lanName = name;
        this.updateTray();
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.follower?.stop();
    this.o.interfaces.stop();
    await this.o.host.stop();
  }

  /**
   * Opens an area in the window now, or once the services are ready. The Desktop screen needs
   * no service to show (its addresses and settings say what is wrong when they are down).
   */
  open(area: OpenArea): void {
    this.area = area;
    const url = areaUrl(this.o.host.info, area);
    if (url && (area === "settings" || this.o.host.info.state === "ready"))
      this.o.shell.showUrl(url);
  }

  private async onStatus(status: HostStatus): Promise<void> {
    const t = translator(this.language);
    if (status.state === "failed") {
      this.o.shell.showMessage("failed", t(`app.failed.${status.code}`), status.message);
      return;
    }
    if (status.state !== "ready" || this.stopped) return;
    this.ready = status.info;
    const result = await this.o.operator.signIn(status.info);
    if (result.parcel?.state === "need-reset") {
      if (!this.resetTried) {
        // A data dir from a headless run: its password is unknown here, so the services
        // make a new one once and hand it over (kept in the keychain by the next sign-in).
        this.resetTried = true;
        this.o.shell.log(
          "The parcel administrator's password is not in the keychain; resetting it",
        );
        await this.o.host.restart([...this.args(), "--reset-admin-password"]);
        this.o.host.setArgs(this.args());
        return;
      }
      this.o.shell.log("The parcel administrator could not be signed in after a reset");
    }
    for (const [name, part] of [
      ["parcel", result.parcel],
      ["proxy", result.proxy],
    ] as const) {
      if (part?.state === "failed")
        this.o.shell.log(`Signing in to the ${name} console failed: ${part.failure.code}`);
    }
    this.signIn = result;
    await this.o.shell.setCookies(result.cookies);
    const url = areaUrl(this.o.host.info, this.area);
    if (url) this.o.shell.showUrl(url);
    this.updateTray();
    // Deliveries that came while the app was away are saved now.
    void this.inbox.sync();
  }

  private onEvent(event: ServiceEvent): void {
    // Inbox deliveries are announced once they are saved, by the inbox keeper.
    if (event.kind === "inbox.delivered") {
      void this.inbox.sync();
      return;
    }
    const owned = keptParcelIds(this.o.secrets);
    const note = notificationFor(event, this.language, (id) => owned.has(id));
    if (note) this.o.shell.notify(note);
  }

  private onEntries(state: EntryState): void {
    if (this.o.host.info.state === "ready" && state.urls.length > 0) {
      try {
        this.o.host.setEntries(state.urls);
      } catch (err) {
        this.o.shell.log(`The new LAN addresses were refused: ${(err as Error).message}`);
      }
    }
    this.updateTray();
  }

  trayState(): TrayState {
    const info = this.o.host.info;
    const services: TrayState["services"] =
      info.state === "ready"
        ? "ready"
        : info.state === "failed"
          ? "failed"
          : info.state === "restarting"
            ? "restarting"
            : "starting";
    const core = info.core;
    const entries = this.entries();
    return {
      services,
      core: !core || !core.installed ? "not_installed" : core.online ? "online" : "offline",
      node: core?.node ?? null,
      entries: [...(entries?.lan ?? []), ...this.lanEntries()].map((e) => ({ ...e, qr: true })),
      missing: entries?.missing ?? [],
      chosen: this.settings.entries !== "all",
      inbox: inboxTray(this.inbox.status, this.language),
    };
  }

  private lanEntries(): LanEntry[] {
    return [lanNameEntry(this.lanName, this.o.host.info)].filter((e) => e !== null);
  }

  private updateTray(): void {
    const t = translator(this.language);
    const state = this.trayState();
    this.o.shell.setTray(trayMenuModel(state, t), trayTooltip(state, t));
  }

  /** What a tray item does. */
  async trayAction(action: TrayAction): Promise<void> {
    switch (action.type) {
      case "open":
        this.open(action.area);
        return;
      case "copy":
        this.o.shell.copyText(action.url);
        return;
      case "qr":
        this.o.shell.showQr(action.url);
        return;
      case "quit":
        this.o.shell.quit();
        return;
      case "core":
        await this.coreCommand(action.command);
        return;
      case "inbox":
        await (
          action.command === "open"
            ? this.inbox.open(INBOX_DEFAULT_MINUTES, null)
            : this.inbox.close()
        ).catch((err: unknown) =>
          this.o.shell.log(`The inbox did not ${action.command}: ${String(err)}`),
        );
    }
  }

  /** Starts, stops or restarts the proxy core through the console's API, as the operator. */
  async coreCommand(command: "start" | "stop" | "restart"): Promise<boolean> {
    const answer = await operatorCall(this.calls, "proxy", "POST", "/system/service", {
      action: command,
    });
    if (answer && (answer.status < 200 || answer.status > 299))
      this.o.shell.log(`The core did not ${command}: HTTP ${answer.status}`);
    return answer !== null && answer.status >= 200 && answer.status <= 299;
  }

  /** A change from the settings screen: stored, then applied (a restart when needed). */
  async changeSettings(patch: unknown): Promise<ApplyResult> {
    const result = applySettingsPatch(this.o.settings, patch, this.language);
    if (!result.ok) return result;
    const { plan, settings } = result;
    if (plan.liveKeys.some((k) => k === "language" || k === "theme")) {
      this.o.shell.appearanceChanged(settings);
      this.updateTray();
    }
    if (plan.liveKeys.some((k) => k === "startAtLogin" || k === "startMinimized"))
      this.o.shell.applyStartAtLogin(settings);
    this.follower?.refresh();
    if (plan.restart) {
      // The window comes back to the settings screen the change was made on.
      this.area = "settings";
      this.o.shell.showMessage("starting", translator(this.language)("app.starting"));
      await this.o.host.restart(this.args());
    }
    return result;
  }
}
