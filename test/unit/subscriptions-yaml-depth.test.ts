import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { readWithLibrary } from "../../server/proxy/subscriptions/clash.js";
import { SubscriptionError } from "../../server/proxy/subscriptions/errors.js";
import { parseSubscription } from "../../server/proxy/subscriptions/parse.js";
import { MAX_YAML_DEPTH } from "../../server/proxy/subscriptions/yaml-aliases.js";
import { refuseDeepFlow } from "../../server/proxy/subscriptions/yaml-depth.js";

const TOO_DEEP = `The subscription's YAML is nested more than ${MAX_YAML_DEPTH} levels deep`;

function refusal(run: () => unknown): SubscriptionError | undefined {
  try {
    run();
  } catch (err) {
    if (err instanceof SubscriptionError) return err;
    throw err;
  }
  return undefined;
}

/** A list nested `depth` levels deep in flow style: [[[…]]] with a value at the bottom. */
function flowList(depth: number): string {
  return "[".repeat(depth) + "x" + "]".repeat(depth);
}

const NODE =
  "  - {name: a, type: ss, server: s.example, port: 1, cipher: aes-256-gcm, password: p}";

describe("flow collections nested too deep for the YAML library", () => {
  it("refuses more than 200 levels, as deep block nesting is refused, and reads 200", () => {
    expect(refusal(() => refuseDeepFlow(flowList(MAX_YAML_DEPTH)))).toBeUndefined();
    for (const doc of [
      flowList(MAX_YAML_DEPTH + 1),
      "proxies:\n  - " + "[".repeat(100_000),
      "proxies:\n  - " + "{a: ".repeat(50_000),
      "proxies:\n  - " + "[{a: ".repeat(MAX_YAML_DEPTH),
      "k: &anchor !tag\n  " + "[\n".repeat(MAX_YAML_DEPTH + 1),
    ]) {
      const error = refusal(() => readWithLibrary(doc));
      expect(error?.code, doc.slice(0, 40)).toBe("subscription.yaml_depth");
      expect(error?.message).toBe(TOO_DEEP);
      expect(error?.params).toEqual({ limit: MAX_YAML_DEPTH });
    }
  });

  it("says so for a whole subscription, before the library recurses", () => {
    const error = refusal(() =>
      parseSubscription("proxies:\n" + NODE + "\n  - " + "[".repeat(1e5)),
    );
    expect(error?.message).toBe(TOO_DEEP);
  });

  it("counts no bracket that does not open a collection", () => {
    const many = (text: string) => text.repeat(MAX_YAML_DEPTH * 5);
    const doc = [
      "# " + many("[{"),
      "proxies:",
      NODE,
      `  - {name: "${many('[\\"')}", type: ss, server: s.example, port: 1, cipher: aes-256-gcm, password: '${many("{''")}'}`,
      "  - name: " + many("a[b{"),
      "    type: ss",
      "    server: s.example # " + many("["),
      "    port: 1",
      "    cipher: aes-256-gcm",
      "    password: |",
      ...Array.from({ length: MAX_YAML_DEPTH + 1 }, () => "      [ {"),
      "",
      "      " + many("["),
      "    plugin-opts: >-",
      "      " + many("{"),
    ].join("\n");
    expect(refusal(() => refuseDeepFlow(doc))).toBeUndefined();
    expect(parseSubscription(doc).nodes.map((node) => node.name)).toHaveLength(3);
  });

  it("agrees with the library on any document it writes: refused exactly when deeper than 200", () => {
    const text = fc.string({
      unit: fc.constantFrom(
        "[",
        "]",
        "{",
        "}",
        '"',
        "'",
        "#",
        ":",
        "-",
        " ",
        "\n",
        "|",
        ">",
        "&",
        "!",
        ",",
        "a",
      ),
    });
    const leaf = fc.oneof(text, fc.integer(), fc.constant(null));
    const nested = fc.record({
      // Shallow, and on either side of the limit.
      depth: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 198, max: 202 })),
      leaf,
      keyed: fc.array(fc.boolean(), { minLength: 202, maxLength: 202 }),
      flow: fc.boolean(),
      siblings: fc.array(fc.tuple(text, leaf), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(nested, ({ depth, leaf, keyed, flow, siblings }) => {
        let value: unknown = leaf;
        for (let level = depth - 1; level >= 0; level--) {
          value = keyed[level]
            ? { k: value, ...Object.fromEntries(siblings) }
            : [value, ...siblings.map(([sibling]) => sibling)];
        }
        // The library's own spelling, all in flow style or all in block style; shallow flow
        // collections folded over lines (folding deep ones takes the library a third of a second).
        const doc = stringify(
          { proxies: value },
          { collectionStyle: flow ? "flow" : "block", lineWidth: depth > 10 ? 0 : 30 },
        );
        const error = refusal(() => refuseDeepFlow(doc));
        expect(error !== undefined).toBe(flow && depth + 1 > MAX_YAML_DEPTH);
      }),
      { numRuns: 100 },
    );
  });
});
