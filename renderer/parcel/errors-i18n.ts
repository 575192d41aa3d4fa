import type { CommonErrorCode, ParcelErrorCode } from "../../server/http/error-codes.js";
import { knows, sayCoded, type ErrorTables } from "../shared/error-table.js";
import { COMMON_EN, COMMON_ZH } from "../shared/errors-common.js";
import type { Lang } from "../shared/lang.js";
import { PARCEL_EN } from "./errors-en.js";
import { PARCEL_ZH } from "./errors-zh.js";

/** Every code the parcel service sends. */
export type ParcelCode = CommonErrorCode | ParcelErrorCode;

/** The parcel pages' sentences for the service's errors, by code, in both languages. */
export const PARCEL_ERROR_TABLES: ErrorTables<ParcelCode> = {
  en: { ...COMMON_EN, ...PARCEL_EN },
  "zh-CN": { ...COMMON_ZH, ...PARCEL_ZH },
};

/**
 * A service error in the reader's language, from its code and values; null when the code is
 * not known here (an older or newer service), so the caller falls back to the service's words.
 */
export function serviceText(
  error: { code: string; params: Record<string, unknown> },
  lang: Lang,
): string | null {
  return sayCoded(PARCEL_ERROR_TABLES[lang], error.code, error.params);
}

/** Whether the pages have their own sentence for this code. */
export function knowsCode(code: string): boolean {
  return knows(PARCEL_ERROR_TABLES.en, code);
}
