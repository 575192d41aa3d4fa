import { useCallback } from "react";
import { formatDuration } from "../../shared/format.js";
import { sentenceGap, type Lang } from "../../shared/lang.js";
import { ApiError } from "../api.js";
import { serviceText } from "../errors-i18n.js";
import { useT, type Translate } from "../i18n.js";
import { useApp } from "../store.js";
import { uiDict, type UiKey } from "./i18n.js";

/** Area-specific sentences per HTTP status (0 = unreachable); they win over the defaults. */
export type StatusTexts = Partial<Record<number, string>>;

const BY_STATUS: Record<number, UiKey> = {
  0: "errUnreachable",
  400: "errBadRequest",
  401: "errAuth",
  403: "errForbidden",
  404: "errNotFound",
  409: "errConflict",
  410: "errGone",
  413: "errTooLarge",
  423: "errLocked",
  429: "errTooMany",
  507: "errStorage",
};

/**
 * One sentence for the user. A service error is said by its code in the page's language
 * (with the values it names, e.g. "2 files are not uploaded yet"); a code this page does not
 * know falls back to the service's own English sentence, and an answer without a code (the
 * service not reached, a proxy in between) to a sentence for its status. 429 always says when
 * to try again.
 */
export function describeError(
  err: unknown,
  t: Translate<UiKey>,
  lang: Lang,
  overrides: StatusTexts = {},
): string {
  if (!(err instanceof ApiError)) {
    return err instanceof Error && err.message ? err.message : t("errUnknown");
  }
  const key = BY_STATUS[err.status] ?? (err.status >= 500 ? "errServer" : "errUnknown");
  let text = overrides[err.status];
  if (text === undefined && err.code) text = serviceText(err, lang) ?? err.message;
  if (text === undefined) {
    const own = err.status !== 0 && !err.message.startsWith("HTTP ") ? err.message : "";
    text = lang === "en" && own ? own : t(key);
    if (lang === "en" && own && err.status === 507) text = `${t("errStorage")} (${own})`;
  }
  if (err.status === 429 && err.retryAfter !== null) {
    // The service's sentences come without a full stop; two sentences in a row need one.
    const first = text.replace(/([\p{L}\p{N})])$/u, "$1.");
    text = `${first}${sentenceGap(lang)}${t("errTryAgainIn", { time: formatDuration(err.retryAfter, lang) })}`;
  }
  return text;
}

/** `describe(err, overrides?)` in the current language. */
export function useErrorText(): (err: unknown, overrides?: StatusTexts) => string {
  const t = useT(uiDict);
  const lang = useApp((s) => s.lang);
  return useCallback(
    (err: unknown, overrides?: StatusTexts) => describeError(err, t, lang, overrides),
    [t, lang],
  );
}
