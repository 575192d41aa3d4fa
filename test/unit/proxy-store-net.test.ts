import { describe, expect, it } from "vitest";
import { normaliseCidr, normaliseHostname } from "../../server/proxy/store/net.js";

describe("normaliseCidr", () => {
  it.each([
    ["10.1.2.3/8", "10.0.0.0/8"],
    [" 192.168.1.77/24 ", "192.168.1.0/24"],
    ["1.2.3.4", "1.2.3.4/32"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["2001:DB8::1/32", "2001:db8::/32"],
    ["2001:db8:0:0:1:0:0:1/128", "2001:db8::1:0:0:1/128"],
    ["::1", "::1/128"],
    ["::/0", "::/0"],
    ["::ffff:10.1.2.3/120", "::ffff:a01:200/120"],
    ["fe80:0:0:0:0:0:0:0/10", "fe80::/10"],
    ["1:0:0:2:0:0:0:3/128", "1:0:0:2::3/128"],
  ])("%s -> %s", (input, expected) => {
    expect(normaliseCidr(input)).toBe(expected);
  });

  it.each([
    "",
    "10.0.0.0/33",
    "10.0.0.0/",
    "10.0.0/8",
    "256.0.0.0/8",
    "::1/129",
    "1::2::3",
    "a.b.c.d/8",
    "10.0.0.0/-1",
    "10.0.0.0/8/8",
  ])("rejects %j", (input) => {
    expect(normaliseCidr(input)).toBeNull();
  });
});

describe("normaliseHostname", () => {
  it.each([
    ["Example.COM", "example.com"],
    [" cn ", "cn"],
    ["_dmarc.example.com", "_dmarc.example.com"],
    ["bücher.de", "xn--bcher-kva.de"],
  ])("%s -> %s", (input, expected) => {
    expect(normaliseHostname(input)).toBe(expected);
  });

  it.each([
    "",
    "a..b",
    "-a.com",
    "a-.com",
    "a b.com",
    "a/b",
    `${"a".repeat(64)}.com`,
    `${"a.".repeat(127)}aa`,
    "*.example.com",
  ])("rejects %j", (input) => {
    expect(normaliseHostname(input)).toBeNull();
  });
});
