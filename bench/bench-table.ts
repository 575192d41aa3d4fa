/**
 * The benchmarks' result table: each measure with Gatehouse's figure, the reference measured
 * in the same run, their ratio, the target and whether it is met. Pure, so the verdicts can
 * be tested without timing anything.
 */

/** What a measure must reach; "info" rows carry no target. */
export type Target =
  /** Gatehouse / reference at least `min` (throughputs: higher is better). */
  | { kind: "ratio-at-least"; min: number }
  /** Gatehouse's own figure at least `min` (a link speed in MB/s). */
  | { kind: "at-least"; min: number; unit: string }
  /** Gatehouse's own figure below `max` (memory, milliseconds: lower is better). */
  | { kind: "below"; max: number; unit: string }
  /** Must hold (the bytes came back intact). */
  | { kind: "true" }
  | { kind: "info" };

export interface Measure {
  measure: string;
  /** Gatehouse's figure; null when it could not be measured. */
  value: number | null;
  /** The reference's figure in the same run; null when there is none or it failed. */
  reference: number | null;
  /** What the reference is, shown beside its figure ("nginx sendfile"). */
  referenceName: string;
  unit: string;
  target: Target;
}

export type Verdict = "yes" | "NO" | "";

/** Gatehouse's figure over the reference's, or null when either is missing or zero. */
export function ratio(m: Pick<Measure, "value" | "reference">): number | null {
  if (m.value === null || m.reference === null || m.reference === 0) return null;
  return m.value / m.reference;
}

/**
 * Whether a measure meets its target: "yes", "NO", or "" for information rows. A figure that
 * is missing (a failed reference included) never meets a target.
 */
export function verdict(m: Measure): Verdict {
  const t = m.target;
  if (t.kind === "info") return "";
  if (m.value === null) return "NO";
  switch (t.kind) {
    case "ratio-at-least": {
      const r = ratio(m);
      return r !== null && r >= t.min ? "yes" : "NO";
    }
    case "at-least":
      return m.value >= t.min ? "yes" : "NO";
    case "below":
      return m.value < t.max ? "yes" : "NO";
    case "true":
      return m.value === 1 ? "yes" : "NO";
  }
}

export function targetText(t: Target): string {
  switch (t.kind) {
    case "ratio-at-least":
      return `>= ${t.min.toFixed(2)}x`;
    case "at-least":
      return `>= ${t.min} ${t.unit}`;
    case "below":
      return `< ${t.max} ${t.unit}`;
    case "true":
      return "exact";
    case "info":
      return "(info)";
  }
}

function figure(value: number | null, unit: string): string {
  if (value === null) return "n/a";
  if (unit === "") return value === 1 ? "yes" : "no";
  const digits = Math.abs(value) >= 100 ? 0 : 1;
  return `${value.toFixed(digits)} ${unit}`;
}

/** One printable row: measure | Gatehouse | reference in the same run | ratio | target | met. */
export function tableRow(m: Measure): Record<string, string> {
  const r = ratio(m);
  return {
    measure: m.measure,
    Gatehouse: figure(m.value, m.unit),
    "reference in the same run":
      m.referenceName === ""
        ? ""
        : `${m.referenceName}: ${m.reference === null && m.unit === "" ? "n/a" : figure(m.reference, m.unit)}`,
    // A ratio compares rates; for a ceiling (memory) or a check it would mean nothing.
    ratio:
      r === null || m.target.kind === "below" || m.target.kind === "true" ? "" : `${r.toFixed(2)}x`,
    target: targetText(m.target),
    met: verdict(m),
  };
}

/** Whether every measure with a target meets it. */
export function allMet(measures: Measure[]): boolean {
  return measures.every((m) => verdict(m) !== "NO");
}

/** The median of some figures (the mean of the middle two for an even count); null for none. */
export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Throughput in MB/s (10^6 bytes per second, as link speeds are written). */
export function mbps(bytes: number, ms: number): number {
  return bytes / 1000 / ms;
}
