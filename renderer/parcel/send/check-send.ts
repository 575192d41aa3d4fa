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
  if (picked.length > policy.max_files) files.push(t("tooMany", { max: policy.max_files }));
  for (const p of picked) {
    if (p.file.size > policy.max_file_bytes)
      files.push(t("fileTooBig", { name: p.name, max: formatBytes(policy.max_file_bytes) }));
  }
  const total = picked.reduce((sum, p) => sum + p.file.size, 0);
  if (total > policy.max_parcel_bytes)
    files.push(
      t("totalTooBig", { size: formatBytes(total), max: formatBytes(policy.max_parcel_bytes) }),
    );
  const out: Problems = { files };
  if (!isWhole(options.days, policy.max_days)) out.days = t("badDays", { max: policy.max_days });
  if (!isWhole(options.downloads, policy.max_downloads))
    out.downloads = t("badDownloads", { max: policy.max_downloads });
  if (policy.require_password && options.password === "") out.password = t("needPassword");
  return out;
}
