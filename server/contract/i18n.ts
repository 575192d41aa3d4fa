/** The two languages Gatehouse speaks, on every page and in the desktop app. */
export type Lang = "en" | "zh-CN";

/**
 * The one way every Gatehouse UI (parcel pages, admin, desktop settings, the shell, the proxy
 * console, and the desktop app's tray, notifications and dialogs) turns a key of its string
 * table into a sentence: typed keys, `{name}` placeholders,
 * and sentences that count something chosen with `Intl.PluralRules`, so "1 parcels" cannot be
 * written by a table.
 */

/** The forms of a counting sentence, by the language's plural category. */
export interface PluralMessage {
  zero?: string;
  one?: string;
  two?: string;
  few?: string;
  many?: string;
  /** Every language has this form; Chinese has only this one. */
  other: string;
  /**
   * The placeholder that holds the number the form is chosen by. Without it: `count`, or `n`
   * when the sentence is given no `count`.
   */
  by?: string;
}

/** One entry of a string table: a plain sentence, or the forms of a counting one. */
export type Message = string | PluralMessage;

/** A string table of one language. */
export type Table<K extends string> = Record<K, Message>;

/** Both languages of one table; the Chinese one must have every key of the English one. */
export type Dict<K extends string> = Record<Lang, Table<K>>;

/** The values a sentence's placeholders are filled with. */
export type Vars = Record<string, string | number>;

export type Translate<K extends string> = (key: K, vars?: Vars) => string;

/** Replaces `{name}` placeholders; a placeholder without a value stays as written. */
export function fill(text: string, vars?: Vars): string {
  if (!vars) return text;
  let out = text;
  for (const [name, value] of Object.entries(vars))
    out = out.replaceAll(`{${name}}`, String(value));
  return out;
}

const rulesByLang = new Map<Lang, Intl.PluralRules>();

function pluralRules(lang: Lang): Intl.PluralRules {
  let rules = rulesByLang.get(lang);
  if (!rules) {
    rules = new Intl.PluralRules(lang);
    rulesByLang.set(lang, rules);
  }
  return rules;
}

/**
 * The number a counting sentence is about. Pages often pass it already formatted for the
 * reader ("1,234"), so a string counts by its digits.
 */
function countOf(value: string | number | undefined): number {
  if (typeof value === "number") return value;
  if (value === undefined) return Number.NaN;
  return Number(value.replace(/[^\d.-]/g, ""));
}

/** The form of a counting sentence the language uses for the number in `vars`. */
export function pluralForm(lang: Lang, message: PluralMessage, vars?: Vars): string {
  const name = message.by ?? (vars && "count" in vars ? "count" : "n");
  const count = countOf(vars?.[name]);
  if (!Number.isFinite(count)) return message.other;
  return message[pluralRules(lang).select(count)] ?? message.other;
}

/** A table entry as a sentence in `lang`, its placeholders filled. */
export function say(lang: Lang, message: Message, vars?: Vars): string {
  return fill(typeof message === "string" ? message : pluralForm(lang, message, vars), vars);
}

/** The sentence of `key` in `lang`, or the English one when the language lacks it. */
export function translate<K extends string>(
  dict: Dict<K>,
  lang: Lang,
  key: K,
  vars?: Vars,
): string {
  return say(lang, dict[lang][key] ?? dict.en[key], vars);
}

/** A translate function bound to one table and language. */
export function translator<K extends string>(dict: Dict<K>, lang: Lang): Translate<K> {
  return (key, vars) => translate(dict, lang, key, vars);
}

/**
 * A counting phrase inside a sentence built in code (the error tables are functions): the
 * form for `count` in `lang`, `{count}` filled.
 */
export function plural(lang: Lang, count: number | string, forms: PluralMessage): string {
  return say(lang, forms, { count });
}
