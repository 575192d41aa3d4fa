import { homedir } from "node:os";
import { join } from "node:path";
import type { HostInfo } from "../host/host-status.js";
import type { DesktopLanguage } from "../i18n.js";
import { InboxKeeper } from "../inbox/keeper.js";
import { DeliveryLedger } from "../inbox/ledger.js";
import type { InboxNotification } from "../inbox/words.js";
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
  });
}
