import { useEffect, useRef, useState } from "react";
import type { TrafficPoint, TrafficRange } from "../../../server/contract/proxy.js";
import { formatBytes } from "../parts/format.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";

const HEIGHT = 200;
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

/** The chart's width follows its box (a phone's 360 px or a desktop card's 900). */
function useWidth(): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setWidth(Math.floor(el.clientWidth));
    measure();
    const watch = new ResizeObserver(measure);
    watch.observe(el);
    return () => watch.disconnect();
  }, []);
  return [ref, width];
}

/** Which buckets get a label under the axis: about six, on round hours or days. */
function labelEvery(count: number, bucketSeconds: number): number {
  if (bucketSeconds === 3600) return count > 12 ? 4 : 2;
  return count > 10 ? 5 : 1;
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
  const [box, width] = useWidth();
  const up = points.reduce((s, p) => s + p.upload, 0);
  const down = points.reduce((s, p) => s + p.download, 0);
  const peak = Math.max(1024, ...points.map((p) => Math.max(p.upload, p.download)));
  const step = byteStep(peak);
  const top = step * Math.max(1, Math.ceil(peak / step));
  const plotW = Math.max(0, width - PAD.left - PAD.right);
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = points.length > 0 ? plotW / points.length : 0;
  const bar = Math.max(1, Math.min(14, (slot - 2) / 2));
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;
  const every = labelEvery(points.length, bucketSeconds);
  const tickLabel = (iso: string) => {
    const d = new Date(iso);
    return bucketSeconds === 3600
      ? d.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" })
      : d.toLocaleDateString(lang, { month: "numeric", day: "numeric" });
  };
  const grid = [];
  for (let v = 0; v <= top + 1; v += step) grid.push(v);
  const label = t("dev.chartLabel", {
    range: t(`dev.range.${range}`),
    up: formatBytes(up),
    down: formatBytes(down),
  });
  return (
    <div className="history-chart" ref={box}>
      {width > 0 ? (
        <svg width={width} height={HEIGHT} role="img" aria-label={label}>
          {grid.map((v) => (
            <g key={v}>
              <line className="hc-grid" x1={PAD.left} x2={width - PAD.right} y1={y(v)} y2={y(v)} />
              <text className="hc-axis" x={PAD.left - 6} y={y(v) + 4} textAnchor="end">
                {formatBytes(v)}
              </text>
            </g>
          ))}
          {points.map((p, i) => {
            const x = PAD.left + i * slot + slot / 2;
            const title = `${tickLabel(p.t)} · ${t("dev.upDown", {
              up: formatBytes(p.upload),
              down: formatBytes(p.download),
            })}`;
            return (
              <g key={p.t} data-bucket={p.t}>
                <title>{title}</title>
                <rect
                  className="hc-down"
                  x={x - bar}
                  y={y(p.download)}
                  width={bar}
                  height={Math.max(0, PAD.top + plotH - y(p.download))}
                />
                <rect
                  className="hc-up"
                  x={x}
                  y={y(p.upload)}
                  width={bar}
                  height={Math.max(0, PAD.top + plotH - y(p.upload))}
                />
                {i % every === (points.length - 1) % every ? (
                  <text className="hc-axis" x={x} y={HEIGHT - 6} textAnchor="middle">
                    {tickLabel(p.t)}
                  </text>
                ) : null}
              </g>
            );
          })}
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
