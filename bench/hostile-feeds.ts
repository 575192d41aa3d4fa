import { parseSubscription } from "../server/proxy/subscriptions/parse.js";
import { percentile } from "./lib.js";

const NODE = "{name: n, type: ss, server: h.example, port: 1, cipher: aes-128-gcm, password: p}";

/** Median wall time of `runs` calls of `fn` (errors are the expected outcome for some). */
function medianMs(fn: () => unknown, runs = 3): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    try {
      fn();
    } catch {
      // Refusing is what a hostile feed should get; only the time counts here.
    }
    times.push(performance.now() - t0);
  }
  return percentile(times, 50);
}

/**
 * Feeds that once stalled the event loop for seconds to hours (quadratic alias resolution,
 * quadratic scans), timed against an ordinary feed of about the same size parsed in the same
 * run (or, for one read by the general YAML reader, the same text without aliases): each must
 * cost at most 10 times its reference, or under 1 s.
 */
export function hostileFeedRows(): Array<Record<string, string>> {
  const ordinary =
    "proxies:\n" +
    Array.from({ length: 1_400 }, (_, i) => `  - ${NODE.replace("name: n,", `name: n${i},`)}`).join(
      "\n",
    );
  const reference = medianMs(() => parseSubscription(ordinary));
  const atCap =
    "x: &x 0042\nproxies:\n" +
    Array.from(
      { length: 10_000 },
      (_, i) =>
        `  - {name: n${i}, type: ss, server: h.example, port: 1, cipher: aes-128-gcm, password: *x}`,
    ).join("\n");
  // The same document with the values written out: what the general YAML reader costs for
  // this much text (the anchor keeps it off the fast reader), so the row shows what aliases add.
  const atCapWrittenOut = atCap.replaceAll("password: *x", 'password: "0042"');
  const cases: Array<[string, string, string?]> = [
    [
      "16,000 aliases of one node, 112 kB (refused)",
      `proxies:\n  - &a ${NODE}\n` + "  - *a\n".repeat(16_000),
    ],
    ["10,000 aliases of one value (the cap, read)", atCap, atCapWrittenOut],
    ["200 kB of blank lines (refused)", "a" + "\n".repeat(200_000) + "a"],
    [
      "a YAML line with 200 kB of blanks (refused)",
      "proxies:\n  - a" + " ".repeat(200_000) + "b: c\n",
    ],
    [
      "50,000 nodes of one name (read, renamed)",
      Array.from({ length: 50_000 }, () => "trojan://p@h.example:443#same").join("\n"),
    ],
  ];
  const rows: Array<Record<string, string>> = [
    {
      feed: `ordinary Clash YAML, 1,400 nodes, ${(ordinary.length / 1024).toFixed(0)} kB (reference)`,
      ms: reference.toFixed(1),
      target: "",
      ok: "",
    },
  ];
  for (const [name, text, own] of cases) {
    const ms = medianMs(() => parseSubscription(text));
    const base = own === undefined ? reference : medianMs(() => parseSubscription(own));
    const limit = Math.max(1000, 10 * base);
    rows.push({
      feed: name,
      ms: ms.toFixed(1),
      target: `< ${limit.toFixed(0)} ms`,
      ok: ms < limit ? "yes" : "NO",
    });
  }
  return rows;
}
