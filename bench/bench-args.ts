import { parseArgs } from "node:util";

/** Command-line options of the transfer benchmark, and the size syntax they use. */

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  kib: 1024,
  kb: 1000,
  m: 1048576,
  mib: 1048576,
  mb: 1_000_000,
  g: 1073741824,
  gib: 1073741824,
  gb: 1_000_000_000,
};

/**
 * A byte count written like `256MiB`, `1GiB`, `8GiB`, `1.5 GiB`, `500MB` or `4096`; binary
 * units (KiB, MiB, GiB, and the bare K, M, G) count 1024s, decimal ones (kB, MB, GB) 1000s.
 * Throws a sentence naming the text for anything else, a fraction of a byte included.
 */
export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined)
    throw new Error(`"${text}" is not a size: write it like 256MiB, 1GiB or 8GiB`);
  const bytes = Number(m[1]) * unit;
  if (!Number.isSafeInteger(bytes) || bytes <= 0)
    throw new Error(`"${text}" is not a whole, positive number of bytes`);
  return bytes;
}

/** A byte count in the largest binary unit that keeps it short (`1GiB`, `1.5GiB`, `300MiB`). */
export function formatSize(bytes: number): string {
  for (const [unit, n] of [
    ["GiB", 1073741824],
    ["MiB", 1048576],
    ["KiB", 1024],
  ] as const) {
    if (bytes >= n) return `${Number((bytes / n).toFixed(2))}${unit}`;
  }
  return `${bytes}B`;
}

export interface TransferOptions {
  /** Size of the file every transfer moves. */
  size: number;
  /** Rounds per server; every figure is the median of its rounds. */
  runs: number;
  /** Service pinned to one core, client to the other (`taskset`). */
  gateway: boolean;
  /** Also measure the admin list endpoints (100,000 parcels, 1,000,000 audit rows). */
  lists: boolean;
}

export const TRANSFER_USAGE = `Usage: npm run bench:transfer -- [options]
  --size SIZE   file size moved by every transfer (default 1GiB; e.g. 256MiB, 8GiB)
  --runs N      rounds per server, figures are medians (default 3)
  --gateway     pin the service to one core and the client to the other (taskset)
  --skip-lists  leave out the admin list endpoints (100,000 parcels; also BENCH_SKIP_LISTS=1)
  --help`;

/** Parses the benchmark's arguments; throws a sentence for anything it cannot use. */
export function parseTransferArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): TransferOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      size: { type: "string" },
      runs: { type: "string" },
      gateway: { type: "boolean" },
      "skip-lists": { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help) return "help";
  const runs = values.runs === undefined ? 3 : Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 50)
    throw new Error(`--runs must be a whole number from 1 to 50, not "${values.runs}"`);
  return {
    size: parseSize(values.size ?? "1GiB"),
    runs,
    gateway: values.gateway ?? false,
    lists: !(values["skip-lists"] ?? false) && env.BENCH_SKIP_LISTS !== "1",
  };
}

/**
 * The disk space a run needs: the two source files (the one every transfer moves and the one
 * sent with curl), the copies of both the server under test stores and the temporary file an
 * upload writes before its rename, plus a margin for the databases and logs.
 */
export function spaceNeeded(size: number): number {
  return 5 * size + 512 * 1048576;
}

/** Null when `free` bytes are enough for a run of `size`, else the sentence refusing it. */
export function refuseForSpace(size: number, free: number, dir: string): string | null {
  const need = spaceNeeded(size);
  if (free >= need) return null;
  return `Not enough free disk space in ${dir} for a ${formatSize(size)} run: it needs ${formatSize(need)} (five copies of the file and a margin) and ${formatSize(free)} is free. Pick a smaller --size or free some space.`;
}
