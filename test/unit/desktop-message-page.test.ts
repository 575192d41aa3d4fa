import { describe, expect, it } from "vitest";
import { messagePage } from "../../main/app/message-page.js";

describe("the window's start-up and failure page", () => {
  it("says the sentence in the reader's language and folds the services' English account", () => {
    const page = messagePage("zh-CN", "Gatehouse 无法启动其服务。", {
      label: "技术细节",
      text: "Port 8000 is used by another program",
    });
    // Served as app://gatehouse/message, never as a data: URL (the window refuses those).
    expect(page.startsWith("<!doctype html>")).toBe(true);
    const doc = page;
    expect(doc).toContain('<html lang="zh-CN">');
    expect(doc).toContain("<p>Gatehouse 无法启动其服务。</p>");
    expect(doc).toContain(
      '<details><summary>技术细节</summary><pre lang="en">Port 8000 is used by another program</pre></details>',
    );
  });

  it("escapes what it shows and runs no script", () => {
    const doc = messagePage("en", "<script>alert(1)</script>", { label: "x", text: "a&b\"'" });
    expect(doc).not.toContain("<script>");
    expect(doc).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(doc).toContain("a&amp;b&quot;&#39;");
    expect(doc).toContain("default-src 'none'");
  });
});
