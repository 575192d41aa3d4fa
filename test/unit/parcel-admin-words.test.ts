import { describe, expect, it } from "vitest";
import { en as adminEn } from "../../renderer/parcel/admin/i18n-en.js";
import { zh as adminZh } from "../../renderer/parcel/admin/i18n-zh.js";
import type { AdminKey, AT } from "../../renderer/parcel/admin/i18n.js";
import {
  ACTIONS,
  actionName,
  detailPart,
  detailText,
  SAID_BY_TARGET,
  settingName,
  sourceText,
  targetText,
} from "../../renderer/parcel/admin/audit-words.js";
import { countText } from "../../renderer/parcel/admin/format.js";
import { parcelName } from "../../renderer/parcel/admin/parcel-name.js";
import {
  check,
  draftsOf,
  POLICY_GROUPS,
  type Settings,
} from "../../renderer/parcel/admin/settings-fields.js";
import { conflictText } from "../../renderer/parcel/admin/settings-pairs.js";
import { entryLabel } from "../../renderer/parcel/ui/entry-label.js";
import { uiDict, type UiKey } from "../../renderer/parcel/ui/i18n.js";
import { sendDict } from "../../renderer/parcel/send/i18n.js";
import { en as proxyEn, zh as proxyZh } from "../../renderer/proxy/words.js";
import { formatBytes } from "../../renderer/shared/format.js";
import { say, type Message } from "../../renderer/shared/i18n.js";
import type { Lang } from "../../renderer/shared/lang.js";
import { AUDIT_DETAILS, type AuditDetailKey } from "../../server/contract/parcel-audit.js";
import { PARCEL_STATES } from "../../server/contract/parcel-views.js";
import { DEFAULT_POLICY, DEFAULT_RUNTIME } from "../../server/parcel/domain/policy.js";
import type { ReceiveFailure } from "../../server/parcel/storage/receive.js";

const tAdmin =
  (table: Record<AdminKey, Message>, lang: Lang): AT =>
  (key, vars) =>
    say(lang, table[key], vars);
const en = tAdmin(adminEn, "en");
const zh = tAdmin(adminZh, "zh-CN");
const CJK = /[\u4e00-\u9fff]/;

describe("audit records in words", () => {
  it("names every recorded action in both languages, never by its code", () => {
    for (const action of ACTIONS) {
      const english = actionName(action, en);
      const chinese = actionName(action, zh);
      expect(english).not.toBe(action);
      expect(english).not.toMatch(/[._]/);
      expect(chinese).toMatch(CJK);
      expect(chinese).not.toMatch(/[a-z]/);
    }
    expect(actionName("pickup.deny", en)).toBe("Pickup refused");
    // A code this console does not know yet is shown as it came.
    expect(actionName("future.thing", en)).toBe("future.thing");
  });

  it("turns details into labelled values: reasons, states, sizes, settings and times", () => {
    expect(detailText({ reason: "wrong_password" }, en, "en")).toBe("Reason: wrong password");
    expect(detailText({ reason: "wrong_password" }, zh, "zh-CN")).toBe("原因：密码错误");
    // Every reason is worded alike, in lower case after "Reason:".
    expect(detailText({ reason: "review" }, en, "en")).toBe(
      "Reason: locked (too many wrong passwords)",
    );
    expect(detailText({ reason: "expired" }, en, "en")).toBe("Reason: expired");
    // The file's name and its parcel's id are said by the target column, not here.
    expect(
      detailText({ name: "a.pdf", parcel: "p1", reason: "too-short", bytes: 2048 }, en, "en"),
    ).toBe(`Reason: less data than declared · Size: ${formatBytes(2048)}`);
    // What `bytes` counts follows the action: what had arrived, what was sent, what was freed.
    const failed = { reason: "too-short", bytes: 2048 };
    expect(detailText(failed, en, "en", "upload.fail")).toBe(
      `Reason: less data than declared · Received: ${formatBytes(2048)}`,
    );
    expect(detailText({ parcels: 1, files: 2, bytes: 2048 }, zh, "zh-CN", "admin.cleanup")).toBe(
      `包裹数：1 · 文件数：2 · 已释放：${formatBytes(2048)}`,
    );
    expect(detailText({ files: 2, bytes: 2048 }, en, "en", "upload.create")).toBe(
      `Files: 2 · Size: ${formatBytes(2048)}`,
    );
    expect(detailText({ changed: { max_days: 5, uploads_enabled: false } }, en, "en")).toBe(
      "Changed: Longest term (days) = 5, Accept new uploads = No",
    );
    expect(detailText({ changed: { data_budget_bytes: 1024 ** 3 } }, zh, "zh-CN")).toBe(
      `修改：数据配额 = ${formatBytes(1024 ** 3)}`,
    );
    expect(detailText({ archive: true, files: 3 }, en, "en")).toBe(
      "All files as one ZIP: Yes · Files: 3",
    );
    const expires = detailText({ expires_at: 1_700_000_000 }, en, "en");
    expect(expires).toMatch(/^Expires: .*2023/);
    // A member a newer service writes has no words here: left out, never shown by its key.
    expect(detailText({ something_new: "x" }, en, "en")).toBe("");
    expect(detailText({ something_new: "x", files: 2 }, zh, "zh-CN")).toBe("文件数：2");
    expect(detailText({ changed: { future_knob: 1, max_days: 5 } }, en, "en")).toBe(
      "Changed: Longest term (days) = 5",
    );
  });

  it("says a download's size once: the file's size, or the bytes sent when they are the same", () => {
    const file = { parcel: "p1", name: "a.txt", size: 10 };
    expect(detailText({ ...file, downloads_left: 9 }, en, "en")).toBe(
      "File size: 10 B · Downloads left: 9",
    );
    expect(detailText({ ...file, downloads_left: 9 }, zh, "zh-CN")).toBe(
      "文件大小：10 B · 剩余下载次数：9",
    );
    const done = { ...file, bytes: 10, expires_at: 1_700_000_000 };
    expect(detailText(done, en, "en", "download.complete")).toMatch(
      /^Sent: 10 B · Expires: .*2023/,
    );
    expect(detailText(done, zh, "zh-CN", "download.complete")).toMatch(
      /^已发送：10 B · 过期时间：/,
    );
    for (const [t, lang] of [
      [en, "en"],
      [zh, "zh-CN"],
    ] as const)
      expect(detailText(done, t, lang)).not.toMatch(/size|File size|文件大小/);
  });

  it("names the source, and the target by its files, never by an id", () => {
    expect(sourceText("admin:root@192.168.1.20", en)).toBe("Administrator root · 192.168.1.20");
    expect(sourceText("visitor:ab12cd34@10.0.0.2", zh)).toBe("浏览器 ab12cd34 · 10.0.0.2");
    expect(sourceText("token@127.0.0.1", en)).toBe("Script (token) · 127.0.0.1");
    expect(sourceText("anonymous@local", zh)).toBe("匿名 · 服务自身");
    const files = (names: string[], total: number) => ({
      files: names,
      total,
      bytes: null,
      code_tail: null,
      removed_at: null,
    });
    expect(
      targetText({ target: "parcel:AbC123", target_name: files(["a.pdf", "b.png"], 5) }, en),
    ).toBe("Parcel: a.pdf, b.png +3 more");
    expect(targetText({ target: "parcel:AbC123", target_name: files(["a.pdf"], 1) }, zh)).toBe(
      "包裹：a.pdf",
    );
    expect(targetText({ target: "file:F9", target_name: files(["报告.pdf"], 1) }, zh)).toBe(
      "文件 报告.pdf",
    );
    expect(targetText({ target: "file:F9", target_name: null }, en)).toBe("A file no longer kept");
    expect(targetText({ target: "parcel:AbC123", target_name: null }, zh)).toBe("已不保留的包裹");
    expect(targetText({ target: "system", target_name: null }, zh)).toBe("服务");
    expect(targetText({ target: "policy", target_name: null }, en)).toBe("Policy");
  });
});

/**
 * A value of every member the service may write, as it writes it. Typed by the contract's
 * list the service's `ctx.audit` is held to: a member added there fails to compile here
 * until it has a value, and the tests below then want words for it.
 */
const SAMPLE: Record<AuditDetailKey, unknown> = {
  files: 2,
  bytes: 2048,
  inbox: true,
  name: "a.pdf",
  parcel: "p1",
  reason: "wrong_password",
  size: 4096,
  archive: true,
  downloads_left: 9,
  expires_at: 1_700_000_000,
  username: "root",
  state: "published",
  downloads: 10,
  changed: { max_days: 5, file_budget: 100 },
  parcels: 1,
  minutes: 30,
  has_password: true,
  closes_at: 1_700_000_000,
  version: "0.1.0",
};

/** Every reason the service records: its own codes, a receive failure, a parcel's state. */
const RECEIVE_FAILURES: Record<Exclude<ReceiveFailure, "stopped">, true> = {
  "too-long": true,
  "too-short": true,
  aborted: true,
  slow: true,
  "cut-off": true,
  io: true,
};
const REASONS = [
  "unknown_code",
  "wrong_password",
  "wrong_passwords",
  "closed",
  "time",
  "session-ended",
  ...Object.keys(RECEIVE_FAILURES),
  ...PARCEL_STATES.filter((s) => s !== "uploading" && s !== "published"),
];

describe("every detail member the service writes, in words", () => {
  const langs = [
    [en, "en"],
    [zh, "zh-CN"],
  ] as const;
  /** A raw key: lower-case letters and `_` before a colon, at the start or after " · ". */
  const RAW_KEY = /(^|· )[a-z_]+[:：]/;

  it("labels each member of each action in both languages, or leaves out what the target says", () => {
    for (const [action, keys] of Object.entries(AUDIT_DETAILS)) {
      for (const key of keys as readonly AuditDetailKey[]) {
        for (const [t, lang] of langs) {
          const text = detailText({ [key]: SAMPLE[key] }, t, lang);
          if (SAID_BY_TARGET.has(key)) {
            expect(text, `${action} ${key} ${lang}`).toBe("");
            continue;
          }
          const part = detailPart(key, SAMPLE[key], t, lang);
          expect(part, `${action} ${key} ${lang}`).not.toBeNull();
          expect(part?.label).not.toBe(key);
          if (lang === "en") expect(part?.label).toMatch(/^[A-Z][^_]*$/);
          else expect(part?.label).toMatch(CJK);
          expect(text).not.toMatch(RAW_KEY);
        }
      }
      // The whole detail at once: no member said by its key.
      const all = Object.fromEntries(keys.map((k: AuditDetailKey) => [k, SAMPLE[k]]));
      for (const [t, lang] of langs) {
        const text = detailText(all, t, lang);
        expect(text, `${action} ${lang}`).not.toMatch(RAW_KEY);
        for (const key of keys) expect(text).not.toMatch(new RegExp(`(^|· )${key}[:：]`));
      }
    }
  });

  it("names every setting a change records, and every reason, in both languages", () => {
    for (const key of [...Object.keys(DEFAULT_POLICY), ...Object.keys(DEFAULT_RUNTIME)]) {
      expect(settingName(key, en), key).toMatch(/^[A-Z]/);
      expect(settingName(key, zh), key).toMatch(CJK);
    }
    for (const reason of REASONS) {
      // "expired" is both the code and the word: what counts is that the table says it.
      const words = [`reason.${reason}`, `state.${reason}`].flatMap((k) =>
        k in adminEn ? [adminEn[k as AdminKey]] : [],
      );
      expect(words, reason).not.toEqual([]);
      expect(detailPart("reason", reason, en, "en")?.value, reason).toBe(words[0]);
      expect(detailPart("reason", reason, zh, "zh-CN")?.value, reason).toMatch(CJK);
    }
  });
});

describe("counts and names for people", () => {
  it("says 1 parcel and 2 files, not 1 parcels", () => {
    expect(countText(1, "cleanup.parcels", en, "en")).toBe("1 parcel");
    expect(countText(2, "cleanup.files", en, "en")).toBe("2 files");
    expect(countText(1200, "cleanup.files", en, "en")).toBe("1,200 files");
    const result = en("cleanup.result", {
      parcels: countText(1, "cleanup.parcels", en, "en"),
      files: countText(1, "cleanup.files", en, "en"),
      bytes: "4 KiB",
    });
    expect(result).toBe("Cleanup finished: 1 parcel and 1 file removed, 4 KiB freed.");
    const chinese = zh("cleanup.result", {
      parcels: countText(1, "cleanup.parcels", zh, "zh-CN"),
      files: countText(3, "cleanup.files", zh, "zh-CN"),
      bytes: "4 KiB",
    });
    expect(chinese).toBe("清理完成：删除了 1 个包裹和 3 个文件，释放 4 KiB。");
  });

  it("names a parcel by its first files and how many more", () => {
    const files = (names: string[]) => ({ files: names.map((name) => ({ name })) });
    const p = (names: string[]) => parcelName(files(names) as never, en);
    expect(p(["a.pdf"])).toBe("a.pdf");
    expect(p(["a.pdf", "b.txt"])).toBe("a.pdf, b.txt");
    expect(p(["a.pdf", "b.txt", "c.png", "d.zip"])).toBe("a.pdf, b.txt +2 more");
    expect(parcelName(files(["a", "b", "c"]) as never, zh)).toBe("a, b 另 1 个文件");
    expect(p([])).toBe("no files left");
  });
});

describe("plain words instead of jargon", () => {
  it("calls a parcel in review locked, in both languages", () => {
    expect(adminEn["state.review"]).toBe("Locked (too many wrong passwords)");
    expect(adminZh["state.review"]).toMatch(/锁定/);
    for (const text of [adminEn["state.review"], adminEn["policy.password_attempts"]])
      expect(text).not.toMatch(/review/i);
    for (const text of [adminZh["state.review"], adminZh["policy.password_attempts"]])
      expect(text).not.toMatch(/审核/);
  });

  it("keeps the renewal formula out of the visible hint and in the help text", () => {
    for (const table of [adminEn, adminZh]) {
      expect(table["policy.renewal_modeHint"]).not.toMatch(/min\(|max\(/);
      expect(table["policy.renewal_modeHelp"]).toMatch(/min\(max\(/);
    }
    const mode = POLICY_GROUPS.flatMap((g) => g.fields).find((f) => f.key === "renewal_mode");
    expect(mode?.help).toBe("policy.renewal_modeHelp");
  });

  it("says what an unfinished upload's deadline means", () => {
    const send = sendDict.en.sessionEnds;
    const ends = say("en", uiDict.en.endsIn, { time: "59 min" });
    expect(`${send} ${ends}`).toBe("Unfinished upload — discarded in 59 min unless it is sent");
    expect(
      `${sendDict["zh-CN"].sessionEnds}${say("zh-CN", uiDict["zh-CN"].endsIn, { time: "59 分" })}`,
    ).toBe("上传未完成：若不发送，将在 59 分后丢弃");
    expect(adminEn["parcels.sessionEnds"]).not.toMatch(/session/i);
    expect(adminZh["parcels.sessionEnds"]).not.toMatch(/会话/);
  });

  it("states the password length in characters, not bytes", () => {
    for (const key of ["auth.passwordRule", "auth.tooShort", "auth.tooLong"] as const) {
      expect(proxyEn[key]).toMatch(/characters/);
      expect(proxyEn[key]).not.toMatch(/bytes?/);
      expect(proxyZh[key]).toMatch(/字符/);
      expect(proxyZh[key]).not.toMatch(/字节/);
    }
  });
});

describe("settings that contradict each other", () => {
  const saved = { ...DEFAULT_POLICY } as unknown as Settings;
  const withDraft = (patch: Record<string, string>) => ({
    ...draftsOf(POLICY_GROUPS, saved),
    ...patch,
  });

  it("marks both fields of a default above its maximum before saving", () => {
    const r = check(POLICY_GROUPS, withDraft({ default_days: "40" }), saved, en);
    expect(r.errors).toEqual({
      default_days: "Must not be more than the longest term (30 days).",
      max_days: "Must not be less than the default term (40 days).",
    });
    const d = check(POLICY_GROUPS, withDraft({ max_downloads: "5" }), saved, zh);
    expect(d.errors).toEqual({
      default_downloads: "不能大于最多下载次数（5）。",
      max_downloads: "不能小于默认下载次数（10）。",
    });
    const cap = check(
      POLICY_GROUPS,
      withDraft({ renew_days: "20", renew_cap_days: "10" }),
      saved,
      en,
    );
    expect(Object.keys(cap.errors).sort()).toEqual(["renew_cap_days", "renew_days"]);
    // Equal values agree.
    expect(check(POLICY_GROUPS, withDraft({ max_days: "7" }), saved, en).errors).toEqual({});
  });

  it("refuses a limit that hides another beside both fields, with one sentence naming both", () => {
    const gib = (n: number) => ({ amount: String(n), unit: 1024 ** 3 });
    const file = check(POLICY_GROUPS, { ...withDraft({}), max_file_bytes: gib(30) }, saved, en);
    expect(file.errors).toEqual({
      max_file_bytes: "Must not be more than the largest parcel (20.0 GiB).",
      max_parcel_bytes: "Must not be less than the largest file (30.0 GiB).",
    });
    expect(file.conflicts).toEqual([
      "“Largest file” (30.0 GiB) must not be more than “Largest parcel” (20.0 GiB).",
    ]);
    expect(file.edited).toEqual(["max_file_bytes"]);
    const cap = check(POLICY_GROUPS, withDraft({ renew_cap_days: "10" }), saved, zh);
    expect(cap.errors).toEqual({
      renew_cap_days: "不能小于最长期限（30 天），否则该期限的包裹永远不会续期。",
      max_days: "不能大于续期上限（10 天）。",
    });
    const daily = check(POLICY_GROUPS, { ...withDraft({}), daily_upload_bytes: gib(5) }, saved, en);
    expect(Object.keys(daily.errors).sort()).toEqual(["daily_upload_bytes", "max_file_bytes"]);
    expect(daily.conflicts).toEqual([
      "“Largest file” (10.0 GiB) must not be more than “Daily upload traffic per client” (5.00 GiB).",
    ]);
  });

  it("counts an invalid edit as an unsaved change, and an unchanged draft as none", () => {
    const r = check(POLICY_GROUPS, withDraft({ max_files: "-5", code_length: "6 " }), saved, en);
    expect(r.edited).toEqual(["max_files"]);
    expect(r.errors.max_files).toBe("Enter a whole number.");
    expect(r.changes).toEqual({});
    expect(check(POLICY_GROUPS, withDraft({}), saved, en).edited).toEqual([]);
  });

  it("offers the renewal default in the form", () => {
    const field = POLICY_GROUPS.flatMap((g) => g.fields).find((f) => f.key === "default_renew");
    expect(field?.kind).toBe("bool");
    const r = check(
      POLICY_GROUPS,
      { ...draftsOf(POLICY_GROUPS, saved), default_renew: false },
      saved,
      en,
    );
    expect(r.changes).toEqual({ default_renew: false });
  });

  it("says the service's refusal in the reader's language with the fields' labels", () => {
    const body = {
      error: "default_days (40) must not be more than max_days (30)",
      code: "policy.conflict",
      conflicts: [
        { field: "default_days", value: 40, limit_field: "max_days", limit: 30, rule: "at_most" },
        {
          field: "renew_cap_days",
          value: 2,
          limit_field: "renew_days",
          limit: 3,
          rule: "at_least",
        },
      ],
    };
    expect(conflictText(body, en)).toBe(
      "“Default term (days)” (40) must not be more than “Longest term (days)” (30). " +
        "“Renewal cap (days after sending)” (2) must be at least “Renewal step (days)” (3).",
    );
    expect(conflictText(body, zh)).toMatch(
      /^“默认期限（天）”（40）不能大于“最长期限（天）”（30）。/,
    );
    expect(conflictText({ error: "x" }, en)).toBe("");
  });
});

describe("share addresses in the reader's language", () => {
  const t =
    (lang: "en" | "zh-CN") =>
    (key: UiKey, vars?: Record<string, string | number>): string =>
      say(lang, uiDict[lang][key], vars);

  it("names share addresses from their URL: this computer, LAN, host names as they are, HTTPS marked", () => {
    const u = (url: string) => ({ label: "English label", url });
    expect(entryLabel(u("http://127.0.0.1:8000/#/pickup"), t("zh-CN"))).toBe("本机");
    expect(entryLabel(u("http://[::1]:8000/#/pickup"), t("zh-CN"))).toBe("本机");
    expect(entryLabel(u("http://localhost:8000/"), t("zh-CN"))).toBe("本机（localhost）");
    expect(entryLabel(u("https://192.168.1.20/"), t("zh-CN"))).toBe("局域网 192.168.1.20（HTTPS）");
    expect(entryLabel(u("http://192.168.1.20:8000/"), t("en"))).toBe("LAN 192.168.1.20");
    expect(entryLabel(u("https://gw.example/"), t("en"))).toBe("gw.example (HTTPS)");
    // Something that is not a URL keeps the service's label.
    expect(entryLabel(u("not a url"), t("zh-CN"))).toBe("English label");
  });
});
