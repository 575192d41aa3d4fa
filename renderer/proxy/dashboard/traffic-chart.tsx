import { useEffect, useRef } from "react";
import { METRICS_INTERVAL_MS } from "../../../server/contract/proxy.js";
import { formatRate } from "../parts/format.js";
import { useT } from "../i18n.js";
import { cssVar } from "../shell/theme.js";

export interface Sample {
  /** ms since epoch when the sample was taken */
  at: number;
  up: number;
  down: number;
}

const WINDOW_MS = 120_000;
const UNIT_NAMES = ["B/s", "KiB/s", "MiB/s", "GiB/s"];
const STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500];

/** A round grid step (1, 2, 5 x 10^n of a binary unit) so that three steps cover `peak`. */
export function gridStep(peak: number): { step: number; label(i: number): string } {
  for (let u = 0; u < UNIT_NAMES.length; u++) {
    for (const mult of STEPS) {
      const step = mult * 1024 ** u;
      if (step * 3 >= peak || (u === UNIT_NAMES.length - 1 && mult === 500)) {
        return { step, label: (i) => `${mult * i} ${UNIT_NAMES[u]}` };
      }
    }
  }
  return { step: peak / 3, label: (i) => formatRate((peak / 3) * i) };
}

/** Sizes the canvas to its box at the screen's pixel ratio; its 2D context in CSS pixels. */
function fitCanvas(el: HTMLCanvasElement) {
  const ratio = window.devicePixelRatio || 1;
  const width = el.clientWidth;
  const height = el.clientHeight;
  if (el.width !== Math.round(width * ratio) || el.height !== Math.round(height * ratio)) {
    el.width = Math.round(width * ratio);
    el.height = Math.round(height * ratio);
  }
  const g = el.getContext("2d");
  if (!g) return null;
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);
  return { g, width, height };
}

type Scale = (v: number) => number;

function drawGrid(
  g: CanvasRenderingContext2D,
  grid: ReturnType<typeof gridStep>,
  y: Scale,
  width: number,
) {
  g.strokeStyle = cssVar("--grid");
  g.lineWidth = 1;
  g.fillStyle = cssVar("--muted");
  g.font = "11px system-ui, sans-serif";
  for (let i = 1; i <= 3; i++) {
    const gy = Math.round(y(grid.step * i)) + 0.5;
    g.beginPath();
    g.moveTo(0, gy);
    g.lineTo(width, gy);
    g.stroke();
    g.fillText(grid.label(i), 4, gy - 3);
  }
}

/** One rate as a smooth line: midpoint quadratic curves through the samples. */
function drawLine(
  g: CanvasRenderingContext2D,
  points: Sample[],
  key: "up" | "down",
  colour: string,
  { x, y }: { x: Scale; y: Scale },
) {
  if (points.length < 2) return;
  g.strokeStyle = colour;
  g.lineWidth = 2;
  g.beginPath();
  points.forEach((p, i) => {
    const px = x(p.at);
    const py = y(p[key]);
    if (i === 0) g.moveTo(px, py);
    else {
      const prev = points[i - 1];
      const mx = (x(prev.at) + px) / 2;
      const my = (y(prev[key]) + py) / 2;
      g.quadraticCurveTo(x(prev.at), y(prev[key]), mx, my);
      if (i === points.length - 1) g.lineTo(px, py);
    }
  });
  g.stroke();
}

function drawFrame(el: HTMLCanvasElement, samples: Sample[]) {
  const fitted = fitCanvas(el);
  if (!fitted) return;
  const { g, width, height } = fitted;
  // Lag one sample interval behind "now" so the newest point arrives off the right edge.
  const now = Date.now() - METRICS_INTERVAL_MS;
  const points = samples.filter((s) => s.at >= now - WINDOW_MS - 2 * METRICS_INTERVAL_MS);
  const grid = gridStep(Math.max(1024, ...points.map((s) => Math.max(s.up, s.down))));
  const max = grid.step * 3 * 1.08;
  const x = (at: number) => width - ((now - at) / WINDOW_MS) * width;
  const y = (v: number) => height - 4 - (v / max) * (height - 20);
  drawGrid(g, grid, y, width);
  drawLine(g, points, "down", cssVar("--chart-down"), { x, y });
  drawLine(g, points, "up", cssVar("--chart-up"), { x, y });
}

/**
 * How long until the chart should be drawn again: the time its axis takes to move one device
 * pixel, so the samples (one every METRICS_INTERVAL_MS) glide instead of jumping (drawing every
 * animation frame changed nothing a person sees and kept the page busy 60 times a second:
 * about 8 frames a second on a 1000-pixel chart). With reduced motion asked for, once per
 * sample.
 */
function nextDrawIn(el: HTMLCanvasElement | null): number {
  if (window.matchMedia?.("(prefers-reduced-motion: reduce)").matches) return METRICS_INTERVAL_MS;
  const pixels = (el?.clientWidth ?? 0) * (window.devicePixelRatio || 1);
  return Math.max(16, WINDOW_MS / Math.max(1, pixels));
}

/**
 * Upload/download rates over the last two minutes on a canvas. The time axis scrolls as time
 * goes, a device pixel at a time; a new sample or theme is drawn at once.
 */
export function TrafficChart({ samples }: { samples: Sample[] }) {
  const t = useT();
  const canvas = useRef<HTMLCanvasElement>(null);
  const data = useRef(samples);
  data.current = samples;

  const redraw = useRef<() => void>(() => undefined);
  useEffect(() => {
    let frame = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const draw = () => {
      clearTimeout(timer);
      cancelAnimationFrame(frame);
      if (canvas.current) drawFrame(canvas.current, data.current);
      timer = setTimeout(() => {
        frame = requestAnimationFrame(draw);
      }, nextDrawIn(canvas.current));
    };
    redraw.current = () => {
      frame = requestAnimationFrame(draw);
    };
    // The theme's colours are read when drawing: a new theme is drawn at once.
    const themes = new MutationObserver(redraw.current);
    themes.observe(document.documentElement, { attributeFilter: ["data-theme"] });
    frame = requestAnimationFrame(draw);
    return () => {
      themes.disconnect();
      clearTimeout(timer);
      cancelAnimationFrame(frame);
    };
  }, []);
  useEffect(() => {
    redraw.current();
  }, [samples]);

  const last = samples[samples.length - 1];
  const label = t("dash.chartLabel", {
    up: formatRate(last?.up ?? 0),
    down: formatRate(last?.down ?? 0),
  });
  return (
    <figure className="chart" data-samples={samples.length}>
      <canvas ref={canvas} role="img" aria-label={label} />
      <figcaption>
        <span className="legend legend-up">{t("dash.up")}</span>
        <span className="legend legend-down">{t("dash.down")}</span>
        <span className="muted">{t("dash.lastTwoMinutes")}</span>
      </figcaption>
    </figure>
  );
}
