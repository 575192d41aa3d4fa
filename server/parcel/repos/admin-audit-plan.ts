import type { Db } from "../../db/open.js";
import { prepared } from "./statements.js";
import { MINUTE_MS } from "../../contract/time-units.js";

/**
 * Picks how to find audit rows whose `source`/`target` contains a fragment. The trigram index
 * answers single trigrams fast (a doclist count) but whole phrases slowly (position lists of
 * every trigram, some of which occur in nearly every row, e.g. `par` of `parcel:`). So the
 * index is asked only for the fragment's rarest trigrams, judged on a small sample of recent
 * rows, and instr() makes the answer exact. A fragment whose rarest trigram is common anyway
 * is cheaper to scan for directly.
 */
const SAMPLE_ROWS = 4000;
const SAMPLE_TTL_MS = MINUTE_MS;
/** Expected candidates above which a scan beats the index (candidates each cost a row read). */
const SCAN_ABOVE = 60_000;
const TOKENS = 2;
const RARE = 0.1;

interface Sample {
  at: number;
  source: string[];
  target: string[];
}
const samples = new WeakMap<Db, Sample>();

function sampleOf(db: Db): Sample {
  const cached = samples.get(db);
  if (cached && Date.now() - cached.at < SAMPLE_TTL_MS) return cached;
  const rows = prepared(db, "SELECT source, target FROM audit ORDER BY id DESC LIMIT ?").all(
    SAMPLE_ROWS,
  ) as Array<{ source: string; target: string }>;
  const fresh = {
    at: Date.now(),
    source: rows.map((r) => r.source),
    target: rows.map((r) => r.target),
  };
  samples.set(db, fresh);
  return fresh;
}

/** Distinct trigrams of a fragment, by code point as the trigram tokenizer splits them. */
export function trigrams(fragment: string): string[] {
  const cps = [...fragment];
  const out = new Set<string>();
  for (let i = 0; i + 3 <= cps.length; i++) out.add(cps.slice(i, i + 3).join(""));
  return [...out];
}

/** An FTS5 query: every given trigram (each a quoted string) in one column. */
function ftsQuery(column: "source" | "target", tokens: string[]): string {
  return tokens.map((t) => `${column} : "${t.replaceAll('"', '""')}"`).join(" AND ");
}

/**
 * The FTS5 query to narrow a fragment search with, or null to scan (fragment shorter than a
 * trigram, or too common for the index to help). `rows` is the number of rows in play.
 */
export function fragmentIndexQuery(
  db: Db,
  column: "source" | "target",
  fragment: string,
  rows: number,
): string | null {
  const grams = trigrams(fragment);
  if (grams.length === 0) return null;
  const values = sampleOf(db)[column];
  const freq = grams
    .map((g) => ({ g, n: values.reduce((sum, v) => sum + (v.includes(g) ? 1 : 0), 0) }))
    .sort((a, b) => a.n - b.n);
  if (values.length > 0 && (freq[0].n / values.length) * rows > SCAN_ABOVE) return null;
  // A second trigram helps only when it is rare too; a common one costs a long doclist walk.
  const picked = freq.filter((f, i) => i === 0 || (i < TOKENS && f.n <= values.length * RARE));
  return ftsQuery(
    column,
    picked.map((f) => f.g),
  );
}
