import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { undoList } from "../../server/proxy/domain/probation-steps.js";

/** `undoList` on plain items: an id and one editable value. */
interface Item {
  id: string;
  v: number;
}

const same = (a: Item, b: Item) => a.v === b.v;
const asWas = (_now: Item, was: Item) => was;
const undo = (before: Item[], after: Item[], current: Item[]) =>
  undoList(before, after, current, same, asWas);

/** A list of items with distinct ids from a small alphabet (so lists share ids often). */
const items = fc.uniqueArray(
  fc.record({ id: fc.constantFrom(..."abcdefghij"), v: fc.integer({ min: 0, max: 3 }) }),
  { selector: (x) => x.id, maxLength: 10 },
);

describe("undoList", () => {
  it("gives back the list before the change when nothing happened since", () => {
    fc.assert(
      fc.property(items, items, (before, after) => {
        expect(undo(before, after, after)).toEqual(before);
      }),
    );
  });

  it("keeps items added since at the end, after the earlier list", () => {
    fc.assert(
      fc.property(items, items, fc.integer({ min: 1, max: 3 }), (before, after, n) => {
        const added = Array.from({ length: n }, (_, i) => ({ id: `new${i}`, v: i }));
        expect(undo(before, after, [...after, ...added])).toEqual([...before, ...added]);
      }),
    );
  });

  it("does nothing more when undone twice", () => {
    fc.assert(
      fc.property(items, items, (before, after) => {
        const once = undo(before, after, after);
        expect(undo(before, after, once)).toEqual(once);
      }),
    );
  });

  it("leaves an item edited or removed since as it is now", () => {
    const before = [
      { id: "a", v: 0 },
      { id: "b", v: 0 },
    ];
    const after = [
      { id: "a", v: 1 },
      { id: "b", v: 1 },
    ];
    // "a" edited again since the change, "b" removed since.
    expect(undo(before, after, [{ id: "a", v: 2 }])).toEqual([{ id: "a", v: 2 }]);
  });

  it("puts an item moved up since after the item it follows", () => {
    const before = [
      { id: "a", v: 0 },
      { id: "b", v: 0 },
      { id: "c", v: 0 },
    ];
    const after = [
      { id: "c", v: 0 },
      { id: "a", v: 0 },
    ];
    const current = [
      { id: "c", v: 0 },
      { id: "x", v: 9 },
      { id: "a", v: 0 },
    ];
    expect(undo(before, after, current).map((i) => i.id)).toEqual(["a", "b", "c", "x"]);
  });
});
