import type { PARCEL_ERRORS } from "../parcel/error-codes.js";
import type { PROXY_ERRORS } from "../proxy/error-codes.js";
import type { ErrorRegistry } from "./error-registry.js";

/**
 * Every error answer carries a stable machine `code` beside its English sentence, so a page can
 * say it in the reader's language. A code is `area.reason`, lower-case; it never changes once
 * shipped (a new meaning gets a new code). Each registry lists, per code, the names of the
 * values (`params`) the sentence mentions; a trailing `?` marks one that is sometimes absent.
 * The pages' translation tables are typed by these registries, so a code without a
 * translation, or a translation that names a value the service does not send, does not compile.
 */
export type { ErrorRegistry } from "./error-registry.js";

/** Codes both services send: the framework's own answers and the shared request checks. */
export const COMMON_ERRORS = {
  "request.no_endpoint": [],
  "request.no_page": [],
  "request.wrong_host": [],
  "request.bad_json": [],
  "request.too_large": [],
  "request.unreadable": [],
  "request.bad_encoding": [],
  "request.not_object": [],
  /** Too many request bodies are being read at once (in all, or from this device): 503. */
  "request.busy": [],
  /** A request body did not arrive whole within the deadline: 408, connection closed. */
  "request.body_timeout": [],
  /**
   * A field failed its schema: `issue` is zod's kind of problem (invalid_type, too_small, ...);
   * for a size, `origin` is what was measured (string, number, array) and `limit` the bound.
   */
  "request.invalid": ["field", "issue", "origin?", "limit?"],
  "request.unknown_field": ["field"],
  "request.not_integer": ["field"],
  "request.page": [],
  "request.page_size": ["max"],
  "auth.cross_site": [],
  "auth.origin": [],
  "server.disk_full": [],
  "server.internal": [],
} as const satisfies ErrorRegistry;

type AllErrors = typeof COMMON_ERRORS & typeof PARCEL_ERRORS & typeof PROXY_ERRORS;

export type CommonErrorCode = keyof typeof COMMON_ERRORS;
export type ParcelErrorCode = keyof typeof PARCEL_ERRORS;
export type ProxyErrorCode = keyof typeof PROXY_ERRORS;
/** Every code a service can send. */
export type ErrorCode = keyof AllErrors & string;

/** A value a sentence mentions: a number (status, limit, count) or a short text (a name). */
export type ParamValue = string | number;
export type ErrorParams = Readonly<Record<string, ParamValue>>;

type Names<C extends ErrorCode> = AllErrors[C][number];
type RequiredName<N> = N extends `${string}?` ? never : N;
type OptionalName<N> = N extends `${infer B}?` ? B : never;

/** The params a code's sentence needs, as the registry declares them. */
export type ParamsOf<C extends ErrorCode> = {
  [K in RequiredName<Names<C>>]: ParamValue;
} & { [K in OptionalName<Names<C>>]?: ParamValue };

/**
 * The trailing arguments of a coded error: optional when the code declares no required
 * param, else an options object whose `params` names exactly the declared values.
 */
export type CodedArgs<C extends ErrorCode, Base> = [RequiredName<Names<C>>] extends [never]
  ? [options?: Base & { params?: ParamsOf<C> }]
  : [options: Base & { params: ParamsOf<C> }];
