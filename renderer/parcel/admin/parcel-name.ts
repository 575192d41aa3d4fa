import type { AdminParcelView as AdminParcel } from "../../../server/contract/parcel-views.js";
import type { AT } from "./i18n.js";

/** How many file names a row shows before "+N more". */
export const NAMES_SHOWN = 2;

/** A parcel as people know it: its first file names, "+N more" for the rest. */
export function parcelName(p: Pick<AdminParcel, "files">, t: AT): string {
  if (p.files.length === 0) return t("parcels.noFilesShort");
  const names = p.files.slice(0, NAMES_SHOWN).map((f) => f.name);
  const rest = p.files.length - names.length;
  const shown = names.join(", ");
  return rest > 0 ? `${shown} ${t("parcels.moreFiles", { n: rest })}` : shown;
}
