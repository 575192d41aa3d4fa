import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import {
  InboxOpenedSchema,
  InboxViewSchema,
  type InboxItem,
  type InboxView,
} from "../../server/contract/parcel-inbox.js";
import type { DesktopLanguage } from "../i18n.js";
import { cookieHeader, cookiesOf } from "../operator/cookies.js";
import type { DeliveryLedger, DeliveryRecord } from "./ledger.js";
import { deliveryNotification, type InboxNotification } from "./words.js";
import { saveAtomically } from "./save-file.js";

/**
 * The desktop's side of the inbox, without Electron: it opens and closes the inbox as the
 * operator, and saves every delivery into the operator's folder through the ordinary pickup
 * routes (resolve with the delivery's code, download each file), exactly as another device of
 * the operator would, then says so once per delivery. What it saved and where is kept in the
 * ledger, so a restart neither fetches a delivery twice nor forgets it.
 */

/** An answer of the parcel service to the operator's own call. */
export interface AdminAnswer {
  status: number;
  body: unknown;
}

export interface InboxKeeperOptions {
  /** The parcel service's origin now (null while it is not running). */
  parcelUrl(): string | null;
  /** A call of `/api/v1/admin<path>` signed in as the operator (signing in again on 401). */
  admin(method: string, path: string, body?: unknown): Promise<AdminAnswer>;
  /** The folder received files go to (the setting, or Downloads/Gatehouse). */
  folder(): string;
  ledger: DeliveryLedger;
  language(): DesktopLanguage;
  notify(notification: InboxNotification): void;
  log(line: string): void;
  /** Told whenever the inbox or the deliveries changed (the tray and the screen follow). */
  changed?(): void;
  fetch?: typeof fetch;
  /** After a delivery could not be saved (a full disk, a folder gone), try again this much later. */
  retryMs?: number;
}

export type InboxStatus = { open: false } | Omit<Extract<InboxView, { open: true }>, "items">;

/** One delivery as the Desktop screen lists it. */
export interface DeliveryView {
  id: string;
  from: string;
  receivedAt: number;
  files: Array<{ name: string; size: number; saved: boolean }>;
  status: "saved" | "saving" | "waiting" | "failed";
  error: string | null;
}

/** What the Desktop screen shows of the inbox. */
export interface InboxDesktopView {
  /** False while the services are not running or the operator is not signed in. */
  available: boolean;
  inbox: InboxStatus;
  folder: string;
  deliveries: DeliveryView[];
}

export class InboxError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "InboxError";
  }
}

export class InboxKeeper {
  private readonly o: InboxKeeperOptions;
  /** Deliveries being saved now: marked before the first await, so each is saved once. */
  private readonly saving = new Set<string>();
  private syncing: Promise<void> | null = null;
  private again = false;
  private last: InboxStatus = { open: false };
  private retry: NodeJS.Timeout | null = null;

  constructor(options: InboxKeeperOptions) {
    this.o = options;
  }

  /** The inbox as last seen (for the tray, which must not wait for the service). */
  get status(): InboxStatus {
    return this.last;
  }

  private async read(): Promise<InboxView> {
    const answer = await this.o.admin("GET", "/inbox");
    if (answer.status !== 200)
      throw new InboxError(`the inbox answered ${answer.status}`, answer.status);
    const view = InboxViewSchema.parse(answer.body);
    const { items: _items, ...status } = view;
    this.remember(view.open ? status : { open: false });
    return view;
  }

  private remember(status: InboxStatus): void {
    const before = JSON.stringify(this.last);
    this.last = status;
    if (JSON.stringify(status) !== before) this.o.changed?.();
  }

  /** Opens the inbox (or gives it a new code) for `minutes`, with a password or none. */
  async open(minutes: number, password: string | null): Promise<InboxStatus> {
    const answer = await this.o.admin("POST", "/inbox", { minutes, password });
    if (answer.status !== 200)
      throw new InboxError(`opening the inbox answered ${answer.status}`, answer.status);
    const opened = InboxOpenedSchema.parse(answer.body);
    this.remember(opened);
    return opened;
  }

  async close(): Promise<void> {
    const answer = await this.o.admin("DELETE", "/inbox");
    if (answer.status !== 200)
      throw new InboxError(`closing the inbox answered ${answer.status}`, answer.status);
    this.remember({ open: false });
  }

  /** The inbox and every delivery, saved or not, newest first. */
  async view(): Promise<InboxDesktopView> {
    const folder = this.o.folder();
    let view: InboxView;
    try {
      view = await this.read();
    } catch {
      const deliveries = this.o.ledger.list().map((r) => this.deliveryView(r));
      return { available: false, inbox: { open: false }, folder, deliveries };
    }
    const { items, ...status } = view;
    const known = new Set(this.o.ledger.list().map((r) => r.id));
    const waiting = items
      .filter((i) => !known.has(i.id))
      .map((i) => this.deliveryView(recordOf(i)));
    const kept = this.o.ledger.list().map((r) => this.deliveryView(r));
    const deliveries = [...waiting, ...kept].sort((a, b) => b.receivedAt - a.receivedAt);
    return { available: true, inbox: view.open ? status : { open: false }, folder, deliveries };
  }

  private deliveryView(r: DeliveryRecord): DeliveryView {
    const status = this.saving.has(r.id)
      ? "saving"
      : r.savedAt !== null
        ? "saved"
        : r.error !== null
          ? "failed"
          : "waiting";
    return {
      id: r.id,
      from: r.from,
      receivedAt: r.receivedAt,
      files: r.files.map((f) => ({ name: f.name, size: f.size, saved: f.path !== null })),
      status,
      error: r.error,
    };
  }

  /** Where a saved file of a delivery is (for "Show in folder"); null when it is not saved. */
  savedPath(deliveryId: string, index = 0): string | null {
    const record = this.o.ledger.get(deliveryId);
    return record?.files[index]?.path ?? record?.files.find((f) => f.path)?.path ?? null;
  }

  /**
   * Saves every delivery not saved yet. Calls while one runs make it look once more when it
   * ends, so a delivery announced meanwhile is never missed.
   */
  sync(): Promise<void> {
    if (this.syncing) {
      this.again = true;
      return this.syncing;
    }
    this.syncing = (async () => {
      do {
        this.again = false;
        await this.syncOnce();
      } while (this.again);
    })().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    let items: InboxItem[];
    try {
      items = (await this.read()).items;
    } catch (err) {
      this.o.log(`The inbox could not be read: ${(err as Error).message}`);
      return;
    }
    for (const item of [...items].reverse()) {
      const record = this.o.ledger.get(item.id);
      if (record?.savedAt != null || item.state !== "published" || this.saving.has(item.id))
        continue;
      await this.save(item, record ?? recordOf(item));
    }
  }

  /** Fetches and saves one delivery's files that are not saved yet, then announces it. */
  private async save(item: InboxItem, record: DeliveryRecord): Promise<void> {
    const origin = this.o.parcelUrl();
    if (!origin) return;
    this.saving.add(item.id);
    this.o.changed?.();
    const folder = this.o.folder();
    try {
      for (const [i, file] of item.files.entries()) {
        if (record.files[i]?.path) continue;
        // A pickup grant lasts 10 minutes: each file asks for its own, so a long one never lapses.
        const cookie = await this.resolve(origin, item.code);
        const res = await this.http()(
          `${origin}/api/v1/pickup/files/${encodeURIComponent(file.id)}/download`,
          { headers: { cookie }, redirect: "manual" },
        );
        if (res.status !== 200 || !res.body)
          throw new InboxError(`the download of ${file.name} answered ${res.status}`, res.status);
        const body = Readable.fromWeb(res.body as NodeReadableStream<Uint8Array>);
        const path = await saveAtomically(folder, file.name, body, file.size);
        record.files[i] = { name: file.name, size: file.size, path };
        record.error = null;
        this.o.ledger.put(record);
      }
      record.savedAt = Date.now();
      this.o.ledger.put(record);
      this.o.notify(deliveryNotification(record, folder, this.o.language()));
    } catch (err) {
      record.error = (err as Error).message;
      this.o.ledger.put(record);
      this.o.log(`A delivery to the inbox could not be saved: ${record.error}`);
      this.retryLater();
    } finally {
      this.saving.delete(item.id);
      this.o.changed?.();
    }
  }

  /** One later look for what is not saved yet; unref'd, so it never keeps the app running. */
  private retryLater(): void {
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.sync();
    }, this.o.retryMs ?? 60_000);
    this.retry.unref();
  }

  /** The pickup cookie for a delivery's code, as any device of the operator would get it. */
  private async resolve(origin: string, code: string): Promise<string> {
    const res = await this.http()(`${origin}/api/v1/pickup/resolve`, {
      method: "POST",
      headers: { origin, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ code }),
      redirect: "manual",
    });
    await res.arrayBuffer();
    if (res.status !== 200)
      throw new InboxError(`the delivery's code answered ${res.status}`, res.status);
    return cookieHeader(cookiesOf(res, origin));
  }

  private http(): typeof fetch {
    return this.o.fetch ?? fetch;
  }
}

/** A new ledger record for a delivery (nothing saved yet). */
function recordOf(item: InboxItem): DeliveryRecord {
  return {
    id: item.id,
    from: item.from,
    receivedAt: item.received_at,
    files: item.files.map((f) => ({ name: f.name, size: f.size, path: null })),
    savedAt: null,
    error: null,
  };
}
