import { describe, expect, it } from "vitest";
import {
  parseContentDisposition,
  parseUpdateInterval,
  parseUserinfo,
} from "../../server/proxy/subscriptions/userinfo.js";

describe("parseUserinfo", () => {
  it.each([
    [
      "upload=1; download=2; total=3; expire=1700000000",
      { upload: 1, download: 2, total: 3, expire: 1700000000 },
    ],
    [
      "upload=1;download=2;total=3;expire=1700000000",
      { upload: 1, download: 2, total: 3, expire: 1700000000 },
    ],
    [
      "Upload = 1 ; DOWNLOAD= 2;Total =3 ; Expire=1700000000;",
      { upload: 1, download: 2, total: 3, expire: 1700000000 },
    ],
    [
      "upload=123.0; download=4.5e+3; total=1.5e+11; expire=",
      { upload: 123, download: 4500, total: 150000000000, expire: null },
    ],
    [
      "upload=; download=; total=107374182400; expire=0",
      { upload: 0, download: 0, total: 107374182400, expire: null },
    ],
    ["total=10737418240", { upload: 0, download: 0, total: 10737418240, expire: null }],
    ['upload="5", download=6, total=7', { upload: 5, download: 6, total: 7, expire: null }],
    [
      "upload=abc; download=2; total=-5; expire=1e9",
      { upload: 0, download: 2, total: 0, expire: 1000000000 },
    ],
  ])("reads %j", (header, usage) => {
    expect(parseUserinfo(header)).toEqual(usage);
  });

  it("joins a header sent twice", () => {
    expect(parseUserinfo(["upload=1; download=2", "total=3"])).toEqual({
      upload: 1,
      download: 2,
      total: 3,
      expire: null,
    });
  });

  it.each([
    [undefined],
    [null],
    [""],
    ["   "],
    ["nonsense"],
    ["foo=1; bar=2"],
    ["upload=abc; total=xyz"],
  ])("answers null when nothing parses: %j", (header) => {
    expect(parseUserinfo(header)).toBeNull();
  });
});

describe("parseUpdateInterval", () => {
  it.each([
    ["24", 24],
    [" 12 ", 12],
    ["1.6", 2],
    ["0.2", 1],
    ["0", null],
    ["-3", null],
    ["soon", null],
    [undefined, null],
  ])("reads %j as %j", (header, hours) => {
    expect(parseUpdateInterval(header)).toBe(hours);
  });
});

describe("parseContentDisposition", () => {
  it.each([
    ['attachment; filename="plain.yaml"', "plain.yaml"],
    ["attachment; filename=bare.yaml", "bare.yaml"],
    ["attachment; filename*=UTF-8''%E6%88%91%E7%9A%84%E6%9C%BA%E5%9C%BA.yaml", "我的机场.yaml"],
    ["attachment; filename=\"fallback.yaml\"; filename*=UTF-8''%E6%9C%BA%E5%9C%BA", "机场"],
    ["attachment;filename*=utf-8'en'na%20me.txt;filename=other", "na me.txt"],
    ["attachment; filename*=iso-8859-1''caf%E9", "café"],
    ['inline; filename="semi;colon.yaml"', "semi;colon.yaml"],
    ['attachment; filename="esc\\"aped"', 'esc"aped'],
    ["attachment; filename=%E6%9C%BA%E5%9C%BA", "机场"],
    ['filename="no-type.yaml"', "no-type.yaml"],
  ])("reads %j", (header, name) => {
    expect(parseContentDisposition(header)).toBe(name);
  });

  it.each([
    [undefined],
    [""],
    ["attachment"],
    ['attachment; filename=""'],
    ["attachment; filename*=UTF-8''%E0%A4"],
  ])("answers null without a usable name: %j", (header) => {
    expect(parseContentDisposition(header)).toBeNull();
  });
});
