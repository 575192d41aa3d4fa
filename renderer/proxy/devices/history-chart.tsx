import { useEffect, useRef, useState } from "react";
import type { TrafficPoint, TrafficRange } from "../../../server/contract/proxy.js";
import { formatBytes } from "../parts/format.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { hourFormat, measureTexts, placeTicks } from "./chart-ticks.js";

const HEIGHT = 200;
/** The axis labels' size: .hc-axis in styles-devices.css. */
const AXIS_FONT_PX = 11;
// Room on the right for half of the last date under the axis.
const PAD = { top: 10, right: 18, bottom: 22, left: 64 };
const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];
// 256 and 512 rather than 200 and 500, so a grid past 1024 of a unit reads 1.00, 1.50, 2.00.
const STEPS = [1, 2, 5, 10, 20, 50, 100, 256, 512];

/** A round step of a binary unit so that four steps cover `peak`. */
export function byteStep(peak: number): number {
  for (let u = 0; u < UNITS.length; u++) {
    for (const mult of STEPS) {
      const step = mult * 1024 ** u;
      if (step * 4 >= peak) return step;
    }
  }
  return peak / 4;
}

/**
 * The chart's width follows its box (a phone's 360 px or a desktop card's 900); its font
 * family is read there too, to measure the axis labels in.
 */
function useWidth(): [React.RefObject<HTMLDivElement | null>, number, string] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  const [family, setFamily] = useState("sans-serif");
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      setWidth(Math.floor(el.clientWidth));
      setFamily(getComputedStyle(el).fontFamily || "sans-serif");
    };
    measure();
    const watch = new ResizeObserver(measure);
    watch.observe(el);
    return () => watch.disconnect();
  }, []);
  return [ref, width, family];
}

/** Where things go in the picture: the y of a byte count, the slot and bar widths. */
interface Layout {
  width: number;
  plotH: number;
  slot: number;
  bar: number;
  y(v: number): number;
}

function layoutOf(points: TrafficPoint[], width: number, top: number): Layout {
  const plotW = Math.max(0, width - PAD.left - PAD.right);
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = points.length > 0 ? plotW / points.length : 0;
  const bar = Math.max(1, Math.min(14, (slot - 2) / 2));
  return { width, plotH, slot, bar, y: (v) => PAD.top + plotH - (v / top) * plotH };
}

/** One bucket: download and upload side by side, its figures as a title, maybe a label. */
function Bucket(props: {
  p: TrafficPoint;
  i: number;
  at: Layout;
  /** When and, if it is labelled, its label and the label's x. */
  when: string;
  tick: { text: string; x: number } | null;
}) {
  const t = useT();
  const { p, i, at, when, tick } = props;
  const x = PAD.left + i * at.slot + at.slot / 2;
  const title = `${when} · ${t("dev.upDown", {
    up: formatBytes(p.upload),
    down: formatBytes(p.download),
  })}`;
  const height = (v: number) => Math.max(0, PAD.top + at.plotH - at.y(v));
  return (
    <g data-bucket={p.t}>
      <title>{title}</title>
      <rect
        className="hc-down"
        x={x - at.bar}
        y={at.y(p.download)}
        width={at.bar}
        height={height(p.download)}
      />
      <rect className="hc-up" x={x} y={at.y(p.upload)} width={at.bar} height={height(p.upload)} />
      {tick ? (
        <text className="hc-axis" x={tick.x} y={HEIGHT - 6} textAnchor="middle">
          {tick.text}
        </text>
      ) : null}
    </g>
  );
}

function GridLines({ top, step, at }: { top: number; step: number; at: Layout }) {
  const grid = [];
  for (let v = 0; v <= top + 1; v += step) grid.push(v);
  return grid.map((v) => (
    <g key={v}>
      <line className="hc-grid" x1={PAD.left} x2={at.width - PAD.right} y1={at.y(v)} y2={at.y(v)} />
      <text className="hc-axis" x={PAD.left - 6} y={at.y(v) + 4} textAnchor="end">
        {formatBytes(v)}
      </text>
    </g>
  ));
}

/** A bucket's time in full (its title): "09:00 AM", "09:00", or the day. */
function whenText(iso: string, bucketSeconds: number, lang: string): string {
  const d = new Date(iso);
  return bucketSeconds === 3600
    ? d.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" })
    : d.toLocaleDateString(lang, { month: "numeric", day: "numeric" });
}

/**
 * The labels under the axis, by bucket: short ("9 AM", "9:00", "6/1"), measured in the chart's
 * own font, as many as fit without touching (chart-ticks.ts).
 */
function useTicks(
  points: TrafficPoint[],
  bucketSeconds: number,
  at: Layout,
  family: string,
): Map<number, { text: string; x: number }> {
  const lang = useApp((s) => s.lang);
  const hourly = bucketSeconds === 3600;
  const texts = points.map((p) => {
    const d = new Date(p.t);
    return hourly
      ? d.toLocaleTimeString(lang, hourFormat(lang))
      : d.toLocaleDateString(lang, { month: "numeric", day: "numeric" });
  });
  const widths = measureTexts(texts, `${AXIS_FONT_PX}px ${family}`);
  const ticks = placeTicks({ widths, slot: at.slot, left: PAD.left, width: at.width, hourly });
  return new Map(ticks.map((k) => [k.index, { text: texts[k.index] ?? "", x: k.x }]));
}

/**
 * What the devices moved per hour (24 h) or per day (7 and 30 days), download and upload as
 * two bars side by side, in plain SVG (no chart library: a few kB instead of a hundred).
 * The picture has one sentence for screen readers; the bars carry their figures as titles.
 */
export function HistoryChart({
  points,
  bucketSeconds,
  range,
}: {
  points: TrafficPoint[];
  bucketSeconds: number;
  range: TrafficRange;
}) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const [box, width, family] = useWidth();
  const up = points.reduce((s, p) => s + p.upload, 0);
  const down = points.reduce((s, p) => s + p.download, 0);
  const peak = Math.max(1024, ...points.map((p) => Math.max(p.upload, p.download)));
  const step = byteStep(peak);
  const top = step * Math.max(1, Math.ceil(peak / step));
  const at = layoutOf(points, width, top);
  const ticks = useTicks(points, bucketSeconds, at, family);
  const label = t("dev.chartLabel", {
    range: t(`dev.range.${range}`),
    up: formatBytes(up),
    down: formatBytes(down),
  });
  return (
    <div className="history-chart" ref={box}>
      {width > 0 ? (
        <svg width={width} height={HEIGHT} role="img" aria-label={label}>
          <GridLines top={top} step={step} at={at} />
          {points.map((p, i) => (
            <Bucket
              key={p.t}
              p={p}
              i={i}
              at={at}
              when={whenText(p.t, bucketSeconds, lang)}
              tick={ticks.get(i) ?? null}
            />
          ))}
        </svg>
      ) : null}
      <div className="facts-row hc-legend">
        <span className="legend legend-down">{t("dev.download")}</span>
        <span className="legend legend-up">{t("dev.upload")}</span>
        <span className="muted" data-testid="range-total">
          {t("dev.total", { up: formatBytes(up), down: formatBytes(down) })}
        </span>
      </div>
    </div>
  );
}
