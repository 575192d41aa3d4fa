import type { ProxyErrorCode } from "../../../server/http/error-codes.js";
import type { PROXY_ERRORS } from "../../../server/proxy/error-codes.js";
import type { Lang } from "../../shared/lang.js";
import { serviceText } from "./errors-i18n.js";

/** The codes whose `detail` is another program's own words (the core's, a YAML parser's). */
export type DetailCode = {
  [K in ProxyErrorCode]: "detail" extends (typeof PROXY_ERRORS)[K][number] ? K : never;
}[ProxyErrorCode];

/**
 * The sentence of each such code without those words, for places that show them apart (folded
 * as "Core output") or not at all (the list of recent problems). Typed by the registry: a new
 * code with a `detail` does not compile until it has a sentence here.
 */
export const BRIEF_ERRORS: Record<Lang, Record<DetailCode, string>> = {
  en: {
    "subscription.yaml_invalid": "The subscription's YAML could not be read.",
    "node.select_refused": "The selection was saved, but the core refused it.",
    "core.config_rejected": "The proxy core's test of the configuration failed.",
    "core.config_load": "The core did not load the configuration.",
    "core.apply_failed": "The change could not be applied to the core.",
    "core.start_failed": "The proxy core could not be started.",
    "core.restart_failed": "The proxy core could not be restarted.",
    "core.stop_failed": "The proxy core could not be stopped.",
    "install.config_rejected":
      "The new core rejected the current configuration, so it was not installed.",
    "install.restart_failed":
      "The new core did not start, so the previous one was put back and started again.",
    "geodata.rejected": "The proxy core refused the new geodata, so the files in use were kept.",
  },
  "zh-CN": {
    "subscription.yaml_invalid": "订阅的 YAML 无法读取。",
    "node.select_refused": "选择已保存，但内核拒绝了它。",
    "core.config_rejected": "代理内核检查配置时未通过。",
    "core.config_load": "内核没有加载该配置。",
    "core.apply_failed": "无法把更改应用到内核。",
    "core.start_failed": "无法启动代理内核。",
    "core.restart_failed": "无法重启代理内核。",
    "core.stop_failed": "无法停止代理内核。",
    "install.config_rejected": "新内核未通过当前配置的检查，因此没有安装。",
    "install.restart_failed": "新内核没有启动，已换回之前的内核并重新启动。",
    "geodata.rejected": "代理内核未接受新的地理数据，仍使用原有文件。",
  },
};

export function isDetailCode(code: string): code is DetailCode {
  return Object.prototype.hasOwnProperty.call(BRIEF_ERRORS.en, code);
}

/**
 * A service error in the reader's language without another program's words: the brief
 * sentence for a code whose `detail` is such words, else the console's sentence; null for a
 * code the console does not know.
 */
export function briefServiceText(
  error: { code: string; params: Record<string, unknown> },
  lang: Lang,
): string | null {
  if (isDetailCode(error.code)) return BRIEF_ERRORS[lang][error.code];
  return serviceText(error, lang);
}
