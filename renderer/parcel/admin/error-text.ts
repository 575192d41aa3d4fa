import type { Lang } from "../../shared/lang.js";
import { formatDuration } from "../../shared/format.js";
import { ApiError } from "../api.js";
import type { Translate } from "../i18n.js";
import { describeError } from "../ui/errors.js";
import type { UiKey } from "../ui/i18n.js";
import type { AT } from "./i18n.js";
import { conflictText } from "./settings-pairs.js";

/**
 * Turns any failure into a sentence for the administrator: the session and sign-in limits
 * and the policy's contradictions in this area's words, everything else as the shared parcel
 * pieces describe it.
 */
export function errorText(err: unknown, t: AT, ui: Translate<UiKey>, lang: Lang): string {
  if (err instanceof ApiError) {
    const conflicts = err.status === 400 ? conflictText(err.body, t) : "";
    if (conflicts) return conflicts;
    if (err.status === 0) return t("err.unreachable");
    if (err.status === 401) return t("err.session");
    if (err.status === 429)
      return err.retryAfter
        ? t("err.tooManyWait", { wait: formatDuration(err.retryAfter, lang) })
        : t("err.tooMany");
  }
  return describeError(err, ui, lang);
}
