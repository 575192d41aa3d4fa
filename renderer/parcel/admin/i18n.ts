import { useT, type Dict, type Translate } from "../i18n.js";
import { en } from "./i18n-en.js";
import { zh } from "./i18n-zh.js";

export type AdminKey = keyof typeof en;

export const adminDict: Dict<AdminKey> = { en, "zh-CN": zh };
export type AT = Translate<AdminKey>;

export function useA(): AT {
  return useT(adminDict);
}
