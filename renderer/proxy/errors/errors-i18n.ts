import type { CommonErrorCode, ProxyErrorCode } from "../../../server/http/error-codes.js";
import { knows, sayCoded, type ErrorTables } from "../../shared/error-table.js";
import { COMMON_EN, COMMON_ZH } from "../../shared/errors-common.js";
import type { Lang } from "../../shared/lang.js";
import { PROXY_EN } from "./errors-en.js";
import { PROXY_ZH } from "./errors-zh.js";

/** Every code the proxy service sends. */
export type ProxyCode = CommonErrorCode | ProxyErrorCode;

/** The console's sentences for the service's errors, by code, in both languages. */
export const PROXY_ERROR_TABLES: ErrorTables<ProxyCode> = {
  en: { ...COMMON_EN, ...PROXY_EN },
  "zh-CN": { ...COMMON_ZH, ...PROXY_ZH },
};

/** Whether the console has its own sentence for this code. */
export function knowsCode(code: string): boolean {
  return knows(PROXY_ERROR_TABLES.en, code);
}

/**
 * A service error in the reader's language, from its code and values; null when the code is
 * not known here, so the caller falls back to the service's English sentence. A refusal that
 * wraps another (an invalid part of a backup) says the inner one in the same language.
 */
export function serviceText(
  error: { code: string; params: Record<string, unknown> },
  lang: Lang,
): string | null {
  const table = PROXY_ERROR_TABLES[lang];
  let params = error.params;
  const inner = params.reason_code;
  if (typeof inner === "string" && inner !== error.code) {
    const reason = sayCoded(table, inner, params);
    if (reason !== null) params = { ...params, reason };
  }
  return sayCoded(table, error.code, params);
}

/** A subscription's last refresh failure in the reader's language (its own words if uncoded). */
export function lastErrorText(
  sub: { lastError: string; lastErrorCode?: string; lastErrorParams?: Record<string, unknown> },
  lang: Lang,
): string {
  if (!sub.lastErrorCode) return sub.lastError;
  return (
    serviceText({ code: sub.lastErrorCode, params: sub.lastErrorParams ?? {} }, lang) ??
    sub.lastError
  );
}
