import { useCallback } from "react";
import { formatDuration } from "../../shared/format.js";
import type { Lang } from "../../shared/lang.js";
import { ApiError } from "../api.js";
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
 * One sentence for the user. English pages show the service's own sentence (it is specific,
 * e.g. "3 file(s) are not uploaded yet"); Chinese pages a translated one for the status.
 * 429 always says when to try again.
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
  if (text === undefined) {
    const own = err.status !== 0 && !err.message.startsWith("HTTP ") ? err.message : "";
    text = lang === "en" && own ? own : t(key);
    if (lang === "en" && own && err.status === 507) text = `${t("errStorage")} (${own})`;
  }
  if (err.status === 429 && err.retryAfter !== null) {
    // The service's sentences come without a full stop; two sentences in a row need one.
    const first = text.replace(/([\p{L}\p{N})])$/u, "$1.");
    text = `${first} ${t("errTryAgainIn", { time: formatDuration(err.retryAfter, lang) })}`;
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
