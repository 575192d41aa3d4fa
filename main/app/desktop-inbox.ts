import { homedir } from "node:os";
import { join } from "node:path";
import type { HostInfo } from "../host/host-status.js";
import type { DesktopLanguage } from "../i18n.js";
import { InboxKeeper } from "../inbox/keeper.js";
import { DeliveryLedger } from "../inbox/ledger.js";
import type { InboxNotification } from "../inbox/words.js";
import type { InboxStatus } from "../inbox/keeper.js";
import type { LanEntry } from "../entries/entries.js";
import type { TrayState } from "../tray/model.js";
import type { DesktopSettings } from "../settings/schema.js";
import { operatorCall, type OperatorCallDeps } from "./operator-calls.js";

/** Where the deliveries the desktop saved are listed (beside the services' data). */
export const INBOX_LEDGER_FILE = "desktop-inbox.json";

/** The folder received files go to when the operator chose none: Downloads/Gatehouse. */
export function defaultInboxFolder(downloadsDir?: string): string {
  return join(downloadsDir ?? join(homedir(), "Downloads"), "Gatehouse");
}

export interface DesktopInboxDeps extends OperatorCallDeps {
  dataDir: string;
  /** The system's Downloads folder (Electron's `app.getPath("downloads")`). */
  downloadsDir?: string;
  settings(): DesktopSettings;
  language(): DesktopLanguage;
  notify(notification: InboxNotification): void;
  changed(): void;
  retryMs?: number;
}

/**
 * The inbox keeper of the desktop app: it calls the parcel console as the operator, saves into
 * the chosen folder, and lists what it saved in a file beside the services' data.
 */
export function createDesktopInbox(deps: DesktopInboxDeps): InboxKeeper {
  const info = (): HostInfo => deps.info();
  return new InboxKeeper({
    parcelUrl: () => info().parcel?.url ?? null,
    admin: async (method, path, body) =>
      (await operatorCall(deps, "parcel", method, `/admin${path}`, body)) ?? {
        status: 0,
        body: null,
      },
    folder: () => deps.settings().inboxFolder ?? defaultInboxFolder(deps.downloadsDir),
    ledger: new DeliveryLedger(join(deps.dataDir, INBOX_LEDGER_FILE)),
    language: deps.language,
    notify: deps.notify,
    log: deps.log,
    changed: deps.changed,
    fetch: deps.fetch,
    retryMs: deps.retryMs,
  });
}

/** The inbox as the tray says it: closed, or open until a time in the operator's language. */
export function inboxTray(inbox: InboxStatus, language: DesktopLanguage): TrayState["inbox"] {
  if (!inbox.open) return { open: false };
  const until = new Intl.DateTimeFormat(language, { timeStyle: "short" }).format(
    inbox.closes_at * 1000,
  );
  return { open: true, until, url: inbox.url };
}

/**
 * The LAN name (`<hostname>.local`, when it resolves to this machine) as an address phones
 * can open, on the parcel desk's ports; null without one or while the services are down.
 */
export function lanNameEntry(name: string | null, info: HostInfo): LanEntry | null {
  const parcel = info.parcel;
  if (!name || !parcel) return null;
  const port = (url: string | null) => (url ? new URL(url).port : null);
  const http = port(parcel.url);
  const https = port(parcel.httpsUrl);
  return {
    address: name,
    name,
    http: `http://${name}:${http}`,
    https: https ? `https://${name}:${https}` : null,
  };
}
