import { describe, expect, it } from "vitest";
import { fileNameProblem } from "../../server/parcel/domain/admission.js";
import { TEXT_FILE_NAME, textFile } from "../../renderer/parcel/send/text-file.js";

describe("text sent from the Text tab", () => {
  it("is named text.txt whatever it says, so no words of it show before it is opened", () => {
    for (const text of [
      "Wi-Fi password for guests: correct-horse",
      "会议纪要：明天下午三点开会",
      "",
      "invoice\u202Efdp.exe",
    ]) {
      expect(textFile(text).name).toBe("text.txt");
    }
    expect(fileNameProblem(TEXT_FILE_NAME)).toBeNull();
  });

  it("travels as UTF-8 bytes, exactly as typed", async () => {
    const text = "Grüße 東京 ✓\r\nline two\n";
    const file = textFile(text);
    expect(file.size).toBe(Buffer.byteLength(text, "utf8"));
    expect(Buffer.from(await file.arrayBuffer()).toString("utf8")).toBe(text);
    expect(file.type).toBe("text/plain;charset=utf-8");
  });
});
