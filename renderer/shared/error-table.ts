import type { ErrorCode, ParamsOf } from "../../server/http/error-codes.js";
import type { Lang } from "./lang.js";

/**
 * One sentence per error code the services send, in one language. The services' registries
 * type these tables (a type-only import: nothing of the server reaches the page), so a code
 * without a sentence, or a sentence that uses a value the service does not send, does not
 * compile; test/unit/error-tables.test.ts checks the same at run time.
 */
export type ErrorTable<C extends ErrorCode> = { [K in C]: (p: ParamsOf<K>) => string };

/** Both languages of one page's table. */
export type ErrorTables<C extends ErrorCode> = Record<Lang, ErrorTable<C>>;

/** A service error as the page received it: its code, the values, and the English sentence. */
export interface CodedError {
  code: string;
  params: Record<string, unknown>;
  /** The service's own sentence, said when the page does not know the code. */
  message: string;
}

/** `params` of an error body, keeping only the values a sentence can show. */
export function paramsOf(body: Record<string, unknown>): Record<string, string | number> {
  const raw = body.params;
  const out: Record<string, string | number> = {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return out;
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v === "string" || typeof v === "number") out[k] = v;
  }
  return out;
}

/** Whether `table` has a sentence for `code`. */
export function knows<C extends ErrorCode>(table: ErrorTable<C>, code: string): code is C {
  return code !== "" && Object.prototype.hasOwnProperty.call(table, code);
}

/**
 * One of several attempts an error names, said by its own code: `<prefix>code` and the values
 * prefixed the same way (`direct_code`, `direct_seconds`, ...).
 */
export function attempt<C extends ErrorCode>(
  table: ErrorTable<C>,
  params: Readonly<Record<string, unknown>>,
  prefix: string,
): string {
  const inner: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params))
    if (k.startsWith(prefix)) inner[k.slice(prefix.length)] = v;
  return sayCoded(table, String(inner.code ?? ""), inner) ?? String(inner.code ?? "");
}

/**
 * The sentence for a coded error in the table's language, or null for a code the table does
 * not know (the caller then shows the service's English sentence).
 */
export function sayCoded<C extends ErrorCode>(
  table: ErrorTable<C>,
  code: string,
  params: Record<string, unknown>,
): string | null {
  if (!knows(table, code)) return null;
  const say = table[code] as (p: Record<string, unknown>) => string;
  return say(params);
}
