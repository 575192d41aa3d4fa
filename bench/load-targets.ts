import type { Measure as TableMeasure } from "./bench-table.js";
import type { Measure } from "./load-protocol.js";

/** The load benchmark's targets, as rows of the benchmarks' result table. Pure, so testable. */

/** The names of the recorders the targets read (bench/load-worker.ts). */
export const PASSWORD_RESOLVE = "pickup: resolve code (password)";
export const OPEN_RESOLVE = "pickup: resolve code (no password)";
/** A recipient who types a password waits less than this, at the 99th percentile. */
export const PASSWORD_P99_MS = 1000;

/** How long one scrypt hash took in the benchmark's process, for the table's information rows. */
export interface HashTimes {
  account: { label: string; ms: number | null };
  pickup: { label: string; ms: number | null };
}

export function loadTargets(input: {
  measures: Measure[];
  /** Every failed request of the run (answers, sockets, bodies, stream disconnects). */
  errors: number;
  hashes: HashTimes;
}): TableMeasure[] {
  const find = (name: string) => input.measures.find((m) => m.name === name);
  const password = find(PASSWORD_RESOLVE);
  const open = find(OPEN_RESOLVE);
  const measured = password !== undefined && password.count > 0;
  return [
    {
      measure: "pickup: resolve a code with a password, p99",
      value: measured ? password.p99 : null,
      reference: open?.p99 ?? null,
      referenceName: "without a password, p99",
      unit: "ms",
      // A run without password clients (LOAD_PASSWORD_SHARE=0) has nothing to hold to it.
      target: measured ? { kind: "below", max: PASSWORD_P99_MS, unit: "ms" } : { kind: "info" },
    },
    {
      measure: "pickup: resolve a code with a password, p50",
      value: measured ? password.p50 : null,
      reference: open?.p50 ?? null,
      referenceName: "without a password, p50",
      unit: "ms",
      target: { kind: "info" },
    },
    {
      measure: "no request failed (errors = 0)",
      value: input.errors === 0 ? 1 : 0,
      reference: null,
      referenceName: "",
      unit: "",
      target: { kind: "true" },
    },
    {
      measure: `one pickup password hash (${input.hashes.pickup.label}), median`,
      value: input.hashes.pickup.ms,
      reference: input.hashes.account.ms,
      referenceName: `account password (${input.hashes.account.label})`,
      unit: "ms",
      target: { kind: "info" },
    },
  ];
}
