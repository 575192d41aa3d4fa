/** The two languages of every Gatehouse page. */
export type Lang = "en" | "zh-CN";

/** The browser's preference decides until the user picks a language. */
export function initialLang(stored: string | null, browser: readonly string[]): Lang {
  if (stored === "en" || stored === "zh-CN") return stored;
  return browser.some((l) => l.toLowerCase().startsWith("zh")) ? "zh-CN" : "en";
}

/** Replaces `{name}` placeholders. */
export function fill(text: string, vars?: Record<string, string | number>): string {
  if (!vars) return text;
  let out = text;
  for (const [name, value] of Object.entries(vars))
    out = out.replaceAll(`{${name}}`, String(value));
  return out;
}

export function browserLanguages(): readonly string[] {
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}
