import type { ParcelProblemCode } from "../../../server/problem-codes.js";
import type { Lang } from "../../shared/lang.js";
import {
  because,
  COMMON_PROBLEMS_EN,
  COMMON_PROBLEMS_ZH,
  problemText,
  type ProblemTables,
  type RecordedProblem,
} from "../../shared/recent-problems-words.js";
import { serviceText } from "../errors-i18n.js";

/** The parcel service's recorded problems, by code, in both languages. */
export const PARCEL_PROBLEM_TABLES: ProblemTables<ParcelProblemCode> = {
  en: {
    ...COMMON_PROBLEMS_EN,
    "cleanup.failed": () => "The periodic cleanup of ended parcels failed.",
    "cleanup.reclaim_failed": () => "Freeing the disk space of deleted files failed.",
    "download.record_failed": (p) => `Recording the end of the download of ${p.name} failed.`,
    "upload.not_stored": (p) =>
      because(`The uploaded file ${p.name} could not be stored`, p.reason, "en"),
  },
  "zh-CN": {
    ...COMMON_PROBLEMS_ZH,
    "cleanup.failed": () => "定期清理已结束的包裹失败。",
    "cleanup.reclaim_failed": () => "释放已删除文件占用的磁盘空间失败。",
    "download.record_failed": (p) => `记录 ${p.name} 的下载结束时出错。`,
    "upload.not_stored": (p) => because(`上传的文件 ${p.name} 无法保存`, p.reason, "zh-CN"),
  },
};

/** A problem the parcel service recorded, in the reader's language (its reason too). */
export function parcelProblemText(problem: RecordedProblem, lang: Lang): string {
  return problemText(PARCEL_PROBLEM_TABLES, lang, problem, (code, params) =>
    serviceText({ code, params }, lang),
  );
}
