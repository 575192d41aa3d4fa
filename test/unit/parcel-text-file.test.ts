import { describe, expect, it } from "vitest";
import { fileNameProblem } from "../../server/parcel/domain/admission.js";
import { textFile, textFileName } from "../../renderer/parcel/send/text-file.js";

describe("text sent from the Text tab", () => {
  it("is named after its first words", () => {
    expect(textFileName("Meeting notes for Friday\nsecond line")).toBe(
      "Meeting notes for Friday.txt",
    );
    expect(textFileName("\n\n   \n  Shopping   list \t \nmilk")).toBe("Shopping list.txt");
    expect(textFileName("会议纪要：明天下午三点开会")).toBe("会议纪要：明天下午三点开会.txt");
  });

  it("cuts a long first line at a word, or at 40 characters when there is none", () => {
    const long = "The quick brown fox jumps over the lazy dog and keeps on running";
    expect(textFileName(long)).toBe("The quick brown fox jumps over the lazy.txt");
    expect(textFileName("长".repeat(60))).toBe(`${"长".repeat(40)}.txt`);
  });

  it("falls back to text.txt when the text has no usable words", () => {
    expect(textFileName("")).toBe("text.txt");
    expect(textFileName(" \n\t\n ")).toBe("text.txt");
    expect(textFileName("...")).toBe("text.txt");
    expect(textFileName("/\\:*?")).toBe("text.txt");
  });

  it("gives names the service accepts and every file system can hold", () => {
    const samples = [
      'a/b\\c:d*e?f"g<h>i|j',
      "invoice\u202Efdp.exe is here",
      "zero\u200Bwidth\u0007bell",
      "trailing dots...",
      ".hidden start",
      "🎉 party at 8 🎉",
    ];
    for (const text of samples) {
      const name = textFileName(text);
      expect(fileNameProblem(name), name).toBeNull();
      expect(name).not.toMatch(/[<>:"|?*\\/]/);
      expect(name).toMatch(/[^. ]\.txt$/);
    }
    expect(textFileName("trailing dots...")).toBe("trailing dots.txt");
    expect(textFileName(".hidden start")).toBe("hidden start.txt");
  });

  it("travels as UTF-8 bytes, exactly as typed", async () => {
    const text = "Grüße 東京 ✓\r\nline two\n";
    const file = textFile(text);
    expect(file.size).toBe(Buffer.byteLength(text, "utf8"));
    expect(Buffer.from(await file.arrayBuffer()).toString("utf8")).toBe(text);
    expect(file.type).toBe("text/plain;charset=utf-8");
  });
});
