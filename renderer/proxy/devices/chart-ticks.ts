/**
 * Which buckets of the history chart get a time label under the axis, and where: never two
 * labels touching, none sticking out of the picture, whatever the width (a 360 px phone or a
 * 1440 px desktop) and however long the reader's language makes a label.
 */

/** Steps between labels: hours that divide a day, days that read well over a week or a month. */
const HOUR_STEPS = [1, 2, 3, 4, 6, 8, 12, 24];
const DAY_STEPS = [1, 2, 3, 5, 7, 10, 15, 30];
/** Room kept clear between two labels, in px. */
export const TICK_GAP = 8;

/** Every how many buckets a label goes: about six at most, fewer when they need the room. */
export function tickEvery(opts: {
  count: number;
  slot: number;
  labelWidth: number;
  hourly: boolean;
}): number {
  const { count, slot, labelWidth, hourly } = opts;
  const steps = hourly ? HOUR_STEPS : DAY_STEPS;
  const least = hourly ? (count > 12 ? 4 : 2) : count > 10 ? 5 : 1;
  for (const step of steps) {
    if (step >= least && step * slot >= labelWidth + TICK_GAP) return step;
  }
  return Math.max(1, count);
}

export interface Tick {
  /** The bucket labelled. */
  index: number;
  /** The middle of its label. */
  x: number;
}

/**
 * The labels to draw: every `tickEvery` buckets counted back from the newest one (so the latest
 * hour or day always has its label), each under its bucket but pulled inside the picture at
 * the edges; a label the pull would bring onto its right neighbour is left out.
 */
export function placeTicks(opts: {
  /** The label of each bucket, measured in px. */
  widths: number[];
  slot: number;
  /** The x of the first bucket's left edge, and the picture's whole width. */
  left: number;
  width: number;
  hourly: boolean;
}): Tick[] {
  const { widths, slot, left, width, hourly } = opts;
  const count = widths.length;
  if (count === 0 || slot <= 0) return [];
  const every = tickEvery({ count, slot, labelWidth: Math.max(...widths), hourly });
  const ticks: Tick[] = [];
  let leftmost = Infinity;
  for (let i = count - 1; i >= 0; i -= every) {
    const half = (widths[i] ?? 0) / 2;
    const centre = left + i * slot + slot / 2;
    const x = Math.min(Math.max(centre, half), width - half);
    if (x + half + TICK_GAP > leftmost) continue;
    ticks.unshift({ index: i, x });
    leftmost = x - half;
  }
  return ticks;
}

/** A label's hour the reader's way, short: "9 AM" in English, "9:00" where clocks run to 23. */
export function hourFormat(lang: string): Intl.DateTimeFormatOptions {
  const twelve = new Intl.DateTimeFormat(lang, { hour: "numeric" }).resolvedOptions().hour12;
  return twelve ? { hour: "numeric" } : { hour: "numeric", minute: "2-digit" };
}

let canvas: HTMLCanvasElement | null = null;

/**
 * The widths in px of `texts` drawn in `font` (a CSS font shorthand), measured on a canvas;
 * where there is none (no DOM), a generous estimate per character.
 */
export function measureTexts(texts: string[], font: string): number[] {
  const ctx =
    typeof document === "undefined"
      ? null
      : (canvas ??= document.createElement("canvas")).getContext("2d");
  if (!ctx) return texts.map((s) => s.length * 7);
  ctx.font = font;
  return texts.map((s) => Math.ceil(ctx.measureText(s).width));
}
