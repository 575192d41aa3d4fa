import { describe, expect, it } from "vitest";
import { NdjsonSplitter } from "../../server/proxy/core/ndjson.js";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("NdjsonSplitter with a record past its limit", () => {
  it("drops the long record as it comes and reads the ones after it", () => {
    const split = new NdjsonSplitter(100);
    expect(split.push(bytes('{"a":1}\n{"long":"'))).toEqual([{ a: 1 }]);
    for (let i = 0; i < 50; i++) expect(split.push(bytes("x".repeat(64)))).toEqual([]);
    expect(split.push(bytes('"}\n{"b":2}\n{"c"'))).toEqual([{ b: 2 }]);
    expect(split.push(bytes(":3}"))).toEqual([]);
    expect(split.end()).toEqual([{ c: 3 }]);
  });

  it("drops a long record that ends in the chunk it started in", () => {
    const split = new NdjsonSplitter(10);
    expect(split.push(bytes(`{"x":"${"y".repeat(20)}"}\n{"d":4}\n`))).toEqual([{ d: 4 }]);
  });

  it("keeps nothing of a stream that ends inside a long record", () => {
    const split = new NdjsonSplitter(10);
    split.push(bytes(`{"x":"${"y".repeat(20)}`));
    expect(split.end()).toEqual([]);
  });
});
