import { formatBytes } from "../../shared/format.js";
import type { PublicPolicy } from "../../../server/contract/parcel-policy.js";
import type { SendKey } from "./i18n.js";
import type { Options, Picked } from "./store.js";

export interface Problems {
  files: string[];
  days?: string;
  downloads?: string;
  password?: string;
}

/**
 * The largest file and parcel a sender can really send: a limit the administrator set higher
 * than another one that also applies (a largest file over the largest parcel, over the daily
 * allowance) is not promised.
 */
export function sendLimits(policy: PublicPolicy): { file: number; parcel: number } {
  const parcel = Math.min(policy.max_parcel_bytes, policy.daily_upload_bytes);
  return { file: Math.min(policy.max_file_bytes, parcel), parcel };
}

function isWhole(n: number, max: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= max;
}

/** Checks the selection and options against the public policy before anything is sent. */
export function checkSend(
  picked: Picked[],
  options: Options,
  policy: PublicPolicy,
  t: (key: SendKey, vars?: Record<string, string | number>) => string,
): Problems {
  const files: string[] = [];
  const limits = sendLimits(policy);
  if (picked.length > policy.max_files) files.push(t("tooMany", { max: policy.max_files }));
  for (const p of picked) {
    if (p.file.size > limits.file)
      files.push(t("fileTooBig", { name: p.name, max: formatBytes(limits.file) }));
  }
  const total = picked.reduce((sum, p) => sum + p.file.size, 0);
  if (total > limits.parcel)
    files.push(t("totalTooBig", { size: formatBytes(total), max: formatBytes(limits.parcel) }));
  const out: Problems = { files };
  if (!isWhole(options.days, policy.max_days)) out.days = t("badDays", { max: policy.max_days });
  if (!isWhole(options.downloads, policy.max_downloads))
    out.downloads = t("badDownloads", { max: policy.max_downloads });
  if (policy.require_password && options.password === "") out.password = t("needPassword");
  return out;
}
