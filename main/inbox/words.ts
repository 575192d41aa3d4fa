import { translator, type DesktopLanguage } from "../i18n.js";
import { displayAddress, displayName, type DesktopNotification } from "../notify/notifications.js";
import type { DeliveryRecord } from "./ledger.js";

/** A notification of one saved delivery; `deliveryId` lets a click show its files. */
export interface InboxNotification extends DesktopNotification {
  deliveryId: string;
}

/** Names said in a notification before "and 2 more". */
const NAMED = 3;

/**
 * One notification per delivery: from which device (its address), which files, and where
 * they are now, in the operator's language.
 */
export function deliveryNotification(
  record: DeliveryRecord,
  folder: string,
  lang: DesktopLanguage,
): InboxNotification {
  const t = translator(lang);
  const from = displayAddress(record.from) ?? t("notify.unknownAddress");
  const names = record.files.map((f) => displayName(f.name));
  let body: string;
  if (names.length === 1) body = t("notify.inbox.one", { file: names[0], folder });
  else {
    const shown = names.slice(0, NAMED).join(lang === "zh-CN" ? "、" : ", ");
    const rest = names.length - NAMED;
    body = t("notify.inbox.many", {
      count: names.length,
      folder,
      names: rest > 0 ? t("notify.inbox.more", { names: shown, count: rest }) : shown,
    });
  }
  return { title: t("notify.inbox.title", { from }), body, deliveryId: record.id };
}
