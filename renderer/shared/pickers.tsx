import type { Lang } from "./lang.js";
import type { ThemePref } from "./storage.js";

export interface PickerLabels {
  language: string;
  theme: string;
  system: string;
  light: string;
  dark: string;
}

/** Language and theme selects of the top bar (both pages). */
export function LangThemePickers(props: {
  lang: Lang;
  setLang(lang: Lang): void;
  theme: ThemePref;
  setTheme(theme: ThemePref): void;
  labels: PickerLabels;
}) {
  const { lang, setLang, theme, setTheme, labels } = props;
  return (
    <>
      <label className="sr-only" htmlFor="lang-pick">
        {labels.language}
      </label>
      <select
        id="lang-pick"
        value={lang}
        onChange={(e) => setLang(e.target.value === "zh-CN" ? "zh-CN" : "en")}
      >
        <option value="en">English</option>
        <option value="zh-CN">简体中文</option>
      </select>
      <label className="sr-only" htmlFor="theme-pick">
        {labels.theme}
      </label>
      <select id="theme-pick" value={theme} onChange={(e) => setTheme(e.target.value as ThemePref)}>
        <option value="system">{labels.system}</option>
        <option value="light">{labels.light}</option>
        <option value="dark">{labels.dark}</option>
      </select>
    </>
  );
}
