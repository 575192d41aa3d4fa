import { describe, expect, it } from "vitest";
import {
  displayAddress,
  displayName,
  notificationFor,
  type NotifiableEvent,
} from "../../main/notify/notifications.js";
import { DESKTOP_STRINGS, resolveLanguage, translator, type DesktopKey } from "../../main/i18n.js";

// 2026-03-01 14:05:09 UTC
const AT = Date.UTC(2026, 2, 1, 14, 5, 9);
const mine = new Set(["p-mine"]);
const owned = (id: string) => mine.has(id);
const utc = { timeZone: "UTC" };

function pickedUp(patch: Partial<Extract<NotifiableEvent, { kind: "parcel.picked_up" }>> = {}) {
  return {
    kind: "parcel.picked_up" as const,
    parcelId: "p-mine",
    file: "report.pdf",
    files: 1,
    from: "192.168.1.23",
    at: AT,
    ...patch,
  };
}

describe("notificationFor", () => {
  it("says which file was picked up, by whom and when", () => {
    expect(notificationFor(pickedUp(), "en", owned, utc)).toEqual({
      title: "Parcel picked up",
      body: "report.pdf was picked up by 192.168.1.23 at 14:05.",
    });
    expect(notificationFor(pickedUp(), "zh-CN", owned, utc)).toEqual({
      title: "包裹已被取走",
      body: "report.pdf 已于 14:05 被 192.168.1.23 取走。",
    });
  });

  it("says the whole parcel went as one ZIP, with its number of files", () => {
    expect(notificationFor(pickedUp({ file: null, files: 3 }), "en", owned, utc)?.body).toBe(
      "All 3 files were picked up as one ZIP by 192.168.1.23 at 14:05.",
    );
    expect(notificationFor(pickedUp({ file: null, files: 3 }), "zh-CN", owned, utc)?.body).toBe(
      "全部 3 个文件已于 14:05 被 192.168.1.23 打包成一个 ZIP 取走。",
    );
    expect(notificationFor(pickedUp({ file: null, files: 1 }), "en", owned, utc)?.body).toBe(
      "The parcel was picked up as a ZIP by 192.168.1.23 at 14:05.",
    );
  });

  it("announces only the operator's own parcels", () => {
    expect(notificationFor(pickedUp({ parcelId: "p-other" }), "en", owned, utc)).toBeNull();
    expect(
      notificationFor(
        { kind: "upload.finished", parcelId: "p-other", files: ["a"], at: AT },
        "en",
        owned,
      ),
    ).toBeNull();
  });

  it("says a finished upload by its file, or by count for several", () => {
    const one = {
      kind: "upload.finished" as const,
      parcelId: "p-mine",
      files: ["photo.jpg"],
      at: AT,
    };
    expect(notificationFor(one, "en", owned, utc)).toEqual({
      title: "Upload finished",
      body: "photo.jpg finished uploading at 14:05 and can be picked up now.",
    });
    const several = { ...one, files: ["a.jpg", "b.jpg", "c.jpg", "d.jpg"] };
    expect(notificationFor(several, "en", owned, utc)?.body).toBe(
      "4 files finished uploading at 14:05 and can be picked up now.",
    );
    expect(notificationFor(several, "zh-CN", owned, utc)).toEqual({
      title: "上传完成",
      body: "4 个文件已于 14:05 上传完成，现在可以取件。",
    });
  });

  it("says the time in the given time zone", () => {
    const shanghai = { timeZone: "Asia/Shanghai" };
    expect(notificationFor(pickedUp(), "zh-CN", owned, shanghai)?.body).toContain("22:05");
  });

  it("shows an IPv4-mapped address as IPv4 and never repeats a malformed one", () => {
    expect(notificationFor(pickedUp({ from: "::ffff:192.168.1.23" }), "en", owned, utc)?.body).toBe(
      "report.pdf was picked up by 192.168.1.23 at 14:05.",
    );
    expect(notificationFor(pickedUp({ from: "<script>" }), "en", owned, utc)?.body).toBe(
      "report.pdf was picked up by an unknown address at 14:05.",
    );
    expect(displayAddress("fe80::1")).toBe("fe80::1");
  });

  it("cleans file names of direction overrides and shortens long ones keeping the extension", () => {
    // U+202E would make "invoice\u202Efdp.exe" read as "invoiceexe.pdf".
    expect(displayName("invoice\u202Efdp.exe")).toBe("invoice fdp.exe");
    expect(displayName("a\nb\tc.txt")).toBe("a b c.txt");
    const long = `${"holiday-".repeat(20)}final.jpeg`;
    const shown = displayName(long);
    expect([...shown].length).toBe(60);
    expect(shown.endsWith("….jpeg")).toBe(true);
    expect(displayName("报告.pdf")).toBe("报告.pdf");
  });
});

describe("desktop strings", () => {
  const en = DESKTOP_STRINGS.en;
  const zh = DESKTOP_STRINGS["zh-CN"];
  const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

  it("has every key in both languages, with the same placeholders", () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    for (const key of Object.keys(en) as DesktopKey[]) {
      expect(zh[key].trim(), key).not.toBe("");
      expect(placeholders(zh[key]), key).toEqual(placeholders(en[key]));
    }
  });

  it("leaves no English sentence in the Chinese table", () => {
    for (const key of Object.keys(zh) as DesktopKey[]) {
      const words = zh[key].replace(
        /\{\w+\}|Gatehouse|HTTPS|ZIP|IPv4|IP|systemd|\.service|mihomo|\/usr\/local\/bin/g,
        "",
      );
      expect(words, key).not.toMatch(/[A-Za-z]{3,}/);
    }
  });

  it("fills placeholders and leaves unknown ones visible", () => {
    expect(translator("en")("tray.node", { node: "JP 2" })).toBe("Node: JP 2");
    expect(translator("en")("tray.node")).toBe("Node: {node}");
  });

  it("follows the system locale when set to system", () => {
    expect(resolveLanguage("system", "zh-CN")).toBe("zh-CN");
    expect(resolveLanguage("system", "zh-TW")).toBe("zh-CN");
    expect(resolveLanguage("system", "en-GB")).toBe("en");
    expect(resolveLanguage("system", "de")).toBe("en");
    expect(resolveLanguage("en", "zh-CN")).toBe("en");
  });
});
