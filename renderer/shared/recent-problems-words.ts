import type {
  CommonProblemCode,
  ProblemCode,
  ProblemParamsOf,
} from "../../server/problem-codes.js";
import type { Lang } from "./lang.js";

/**
 * One sentence per problem a service records, in one language. The services' registries type
 * these tables (a type-only import), so a recorded problem without a sentence does not
 * compile; test/unit/problem-tables.test.ts checks the same at run time. `reason` is the error
 * behind the problem, already said in the same language (absent when the page has no words
 * for it).
 */
export type ProblemTable<C extends ProblemCode> = {
  [K in C]: (p: ProblemParamsOf<K> & { reason?: string }) => string;
};

export type ProblemTables<C extends ProblemCode> = Record<Lang, ProblemTable<C>>;

/** "Outer: reason" when the reason is known, else the outer sentence alone. */
export function because(outer: string, reason: string | undefined, lang: Lang): string {
  if (!reason) return lang === "en" ? `${outer}.` : `${outer}。`;
  return lang === "en" ? `${outer}: ${reason}` : `${outer}：${reason}`;
}

/**
 * The reason alone when it already names what was tried ("The update check failed: …"), else
 * the outer sentence: the two together would say the same twice.
 */
export function reasonOr(outer: string, reason: string | undefined, lang: Lang): string {
  if (reason) return `${reason}`;
  return lang === "en" ? `${outer}.` : `${outer}。`;
}

/** Problems of the shared error handler, which both services record. */
export const COMMON_PROBLEMS_EN: ProblemTable<CommonProblemCode> = {
  "request.failed": (p) => because("A request could not be answered", p.reason, "en"),
  "request.no_room": (p) => because("A request was refused for lack of disk space", p.reason, "en"),
  "request.disk_full": () => "A request failed because the disk is full.",
  "request.unexpected": () => "An unexpected error occurred while a request was answered.",
};

export const COMMON_PROBLEMS_ZH: ProblemTable<CommonProblemCode> = {
  "request.failed": (p) => because("一个请求未能完成", p.reason, "zh-CN"),
  "request.no_room": (p) => because("一个请求因磁盘空间不足被拒绝", p.reason, "zh-CN"),
  "request.disk_full": () => "磁盘已满，一个请求未能完成。",
  "request.unexpected": () => "处理一个请求时发生了意外错误。",
};

/** The sentence for a code this page does not know (a newer or older service). */
const UNKNOWN: Record<Lang, string> = {
  en: "The service recorded a problem this page has no words for; the service's log has the details.",
  "zh-CN": "服务记录了一个此页面无法描述的问题；详情请查看服务的日志。",
};

/** A recorded problem as a page received it. */
export interface RecordedProblem {
  code?: unknown;
  params?: unknown;
}

/** The values a sentence may show: strings and numbers only. */
function cleanParams(raw: unknown): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return out;
  for (const [k, v] of Object.entries(raw)) {
    if (typeof v === "string" || typeof v === "number") out[k] = v;
  }
  return out;
}

/**
 * A recorded problem in the reader's language. `reasonText` says the error behind it (by its
 * own code, with the console's error tables); a code the table does not know gets the generic
 * sentence, never the service's English one.
 */
export function problemText<C extends ProblemCode>(
  tables: ProblemTables<C>,
  lang: Lang,
  problem: RecordedProblem,
  reasonText: (code: string, params: Record<string, string | number>) => string | null,
): string {
  const table = tables[lang];
  const code = typeof problem.code === "string" ? problem.code : "";
  if (!code || !Object.prototype.hasOwnProperty.call(table, code)) return UNKNOWN[lang];
  const params = cleanParams(problem.params);
  const inner = params.reason_code;
  const reason = typeof inner === "string" ? (reasonText(inner, params) ?? undefined) : undefined;
  const say = table[code as C] as (p: Record<string, unknown>) => string;
  return say({ ...params, reason });
}

/** The recent-problems card's own words, the same in the parcel admin and the proxy console. */
export const PROBLEMS_WORDS_EN = {
  "problems.title": "Recent problems",
  "problems.none": "No problems since the service started.",
  "problems.intro": "The service's last warnings and errors, newest first.",
  "problems.error": "Error",
  "problems.warning": "Warning",
  "problems.request": "Request",
};

export const PROBLEMS_WORDS_ZH: Record<keyof typeof PROBLEMS_WORDS_EN, string> = {
  "problems.title": "最近的问题",
  "problems.none": "服务启动以来没有出现问题。",
  "problems.intro": "服务最近的警告和错误，最新的在前。",
  "problems.error": "错误",
  "problems.warning": "警告",
  "problems.request": "请求",
};
