import { translator, type DesktopLanguage } from "../i18n.js";

/**
 * Desktop notifications from what the services report. Only the operator's own parcels are
 * announced; the words say which file, from which address, and when, in the operator's language.
 */

/** The parcel service's events as they arrive through the host protocol. */
export type NotifiableEvent =
  | {
      kind: "parcel.picked_up";
      parcelId: string;
      /** The file's name; null when the whole parcel was taken as one ZIP. */
      file: string | null;
      /** How many files the download held. */
      files: number;
      /** The recipient's IP address. */
      from: string;
      /** ms since the epoch. */
      at: number;
    }
  | { kind: "upload.finished"; parcelId: string; files: string[]; at: number };

export interface DesktopNotification {
  title: string;
  body: string;
}

export interface NotifyOptions {
  /** Time zone for the time said (the system's when unset; tests pin one). */
  timeZone?: string;
}

/** Longest file name said in full; longer ones keep their start and extension. */
const MAX_NAME = 60;

/**
 * A file name as a notification can show it: control and bidi-override characters (which
 * could make `exe.pdf` read as `fdp.exe`) become spaces, and a long name is shortened in the
 * middle so its extension stays visible.
 */
export function displayName(name: string): string {
  const clean = name
    .replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  const chars = [...clean];
  if (chars.length <= MAX_NAME) return clean;
  const dot = clean.lastIndexOf(".");
  const ext = dot > 0 && clean.length - dot <= 10 ? [...clean.slice(dot)] : [];
  const head = chars.slice(0, MAX_NAME - ext.length - 1);
  return `${head.join("")}…${ext.join("")}`;
}

/** The recipient's address as people write it (no IPv4-mapped IPv6 prefix). */
export function displayAddress(from: string): string | null {
  const address = from.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  return /^[0-9a-f.:]{2,45}$/i.test(address) ? address : null;
}

function clock(at: number, lang: DesktopLanguage, timeZone: string | undefined): string {
  return new Intl.DateTimeFormat(lang, {
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone,
  }).format(new Date(at));
}

/**
 * The notification for an event, or null when there is none to show (a parcel the operator
 * does not own: sent from another device on the LAN).
 */
export function notificationFor(
  event: NotifiableEvent,
  lang: DesktopLanguage,
  owned: (parcelId: string) => boolean,
  options: NotifyOptions = {},
): DesktopNotification | null {
  if (!owned(event.parcelId)) return null;
  const t = translator(lang);
  const time = clock(event.at, lang, options.timeZone);
  if (event.kind === "parcel.picked_up") {
    const from = displayAddress(event.from) ?? t("notify.unknownAddress");
    let body: string;
    if (event.file !== null)
      body = t("notify.pickedUp.file", { file: displayName(event.file), from, time });
    else if (event.files > 1)
      body = t("notify.pickedUp.zipMany", { count: event.files, from, time });
    else if (event.files === 1) body = t("notify.pickedUp.zipOne", { from, time });
    else body = t("notify.pickedUp.parcel", { from, time });
    return { title: t("notify.pickedUp.title"), body };
  }
  const count = event.files.length;
  const body =
    count === 1
      ? t("notify.uploaded.one", { file: displayName(event.files[0]), time })
      : count > 1
        ? t("notify.uploaded.many", { count, time })
        : t("notify.uploaded.none", { time });
  return { title: t("notify.uploaded.title"), body };
}
