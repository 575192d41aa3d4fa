import type { ParcelProblemCode } from "../../../server/problem-codes.js";
import type { ParamValue } from "../../../server/http/error-codes.js";
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

const QUARANTINED_EN =
  "It was moved to quarantine and is never sent again; a new upload of the same file stores it afresh.";
const QUARANTINED_ZH = "它已被移入隔离区，不会再被发送；再次上传同一文件即可重新保存。";

/** An exact byte count a problem names (sizes that differ by a byte must read differently). */
function bytes(n: ParamValue | undefined, lang: Lang): string {
  const count = String(n);
  if (lang !== "en") return `${count} 字节`;
  return n === 1 ? "1 byte" : `${count} bytes`;
}

const wrongEn = (n: string | number) => (n === 1 ? "a wrong password" : `${n} wrong passwords`);

/** "report.pdf", or "report.pdf and 2 more files". */
const filesEn = (name: string | number, files: string | number | undefined) =>
  typeof files === "number" && files > 1
    ? `${name} and ${files - 1} more ${files === 2 ? "file" : "files"}`
    : String(name);
const filesZh = (name: string | number, files: string | number | undefined) =>
  typeof files === "number" && files > 1 ? `${name} 等 ${files} 个文件` : String(name);

/** The parcel service's recorded problems, by code, in both languages. */
export const PARCEL_PROBLEM_TABLES: ProblemTables<ParcelProblemCode> = {
  en: {
    ...COMMON_PROBLEMS_EN,
    "cleanup.failed": () => "The periodic cleanup of ended parcels failed.",
    "cleanup.reclaim_failed": () => "Freeing the disk space of deleted files failed.",
    "download.record_failed": (p) => `Recording the end of the download of ${p.name} failed.`,
    "upload.not_stored": (p) =>
      because(`The uploaded file ${p.name} could not be stored`, p.reason, "en"),
    "blob.wrong_size": (p) =>
      `The stored copy of ${p.name} held ${bytes(p.found, "en")} instead of ${bytes(p.expected, "en")}. ${QUARANTINED_EN}`,
    "blob.wrong_content": (p) =>
      `The stored copy of ${p.name} no longer matches its checksum. ${QUARANTINED_EN}`,
    "blob.missing": (p) =>
      `The stored copy of ${p.name} is missing. Its downloads are refused; a new upload of the same file stores it again.`,
    "admin.sign_in_blocked": (p) =>
      `Administrator sign-in was blocked on one device for ${p.minutes} min after ${wrongEn(p.attempts)}.`,
    "upload.allowance_used": () =>
      "A sender used up today's upload allowance; that device's uploads are refused until midnight (UTC).",
    "pickup.parcel_locked": (p) =>
      `The parcel with ${filesEn(p.name, p.files)} was locked after ${wrongEn(p.attempts)}; reissue it to share it again.`,
    "pickup.client_blocked": (p) =>
      `One device tried too many wrong codes or passwords; its pickups are refused for ${p.minutes} min.`,
    "pickup.service_blocked": (p) =>
      `Too many wrong codes were tried across the service; for ${p.minutes} min only pickups already under way go on.`,
    "blob.unreadable": (p) => `The stored copy of ${p.name} cannot be read. ${QUARANTINED_EN}`,
    "verify.failed": () => "The check of the stored files stopped before its end.",
  },
  "zh-CN": {
    ...COMMON_PROBLEMS_ZH,
    "cleanup.failed": () => "定期清理已结束的包裹失败。",
    "cleanup.reclaim_failed": () => "释放已删除文件占用的磁盘空间失败。",
    "download.record_failed": (p) => `记录 ${p.name} 的下载结束时出错。`,
    "upload.not_stored": (p) => because(`上传的文件 ${p.name} 无法保存`, p.reason, "zh-CN"),
    "blob.wrong_size": (p) =>
      `${p.name} 的存储副本应为 ${bytes(p.expected, "zh-CN")}，实际为 ${bytes(p.found, "zh-CN")}。${QUARANTINED_ZH}`,
    "blob.wrong_content": (p) => `${p.name} 的存储副本与其校验和不再相符。${QUARANTINED_ZH}`,
    "blob.missing": (p) =>
      `${p.name} 的存储副本已丢失。它的下载会被拒绝；再次上传同一文件即可重新保存。`,
    "admin.sign_in_blocked": (p) =>
      `一台设备连续输错 ${p.attempts} 次管理员密码，该设备的登录已被暂停 ${p.minutes} 分钟。`,
    "upload.allowance_used": () =>
      "有发送者用完了今天的上传额度；今天（协调世界时）结束之前，该设备的上传都会被拒绝。",
    "pickup.parcel_locked": (p) =>
      `包含 ${filesZh(p.name, p.files)}的包裹因输错 ${p.attempts} 次密码已被锁定；重新发放后才能再次分享。`,
    "pickup.client_blocked": (p) =>
      `一台设备输错取件码或密码的次数过多，${p.minutes} 分钟内无法取件。`,
    "pickup.service_blocked": (p) =>
      `整个服务上输错的取件码过多；${p.minutes} 分钟内只有正在进行的取件可以继续。`,
    "blob.unreadable": (p) => `${p.name} 的存储副本无法读取。${QUARANTINED_ZH}`,
    "verify.failed": () => "对已存储文件的检查未能完成。",
  },
};

/** A problem the parcel service recorded, in the reader's language (its reason too). */
export function parcelProblemText(problem: RecordedProblem, lang: Lang): string {
  return problemText(PARCEL_PROBLEM_TABLES, lang, problem, (code, params) =>
    serviceText({ code, params }, lang),
  );
}
