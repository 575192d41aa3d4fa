import { useEffect, useRef, useState, type ReactNode } from "react";

/**
 * Renders only the rows in view (plus a margin) inside a scrolling box, so thousands of
 * fixed-height rows cost what a screenful costs. Rows are absolutely placed in a spacer.
 */
export function VirtualList<T>({
  items,
  rowHeight,
  height,
  render,
  label,
  stickToEnd = false,
  overscan = 8,
  onRowClick,
  rowClass,
}: {
  items: readonly T[];
  rowHeight: number;
  height: number | string;
  render(item: T, index: number): ReactNode;
  label: string;
  /** Keep the view at the bottom while it is there (logs). */
  stickToEnd?: boolean;
  overscan?: number;
  /** A click anywhere on a row (its own buttons stop the click when they mean something else). */
  onRowClick?: (item: T) => void;
  /** An extra class for a row (the one whose details are open). */
  rowClass?: (item: T) => string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewHeight, setViewHeight] = useState(400);
  const atEnd = useRef(true);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setViewHeight(el.clientHeight);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const el = box.current;
    if (stickToEnd && el && atEnd.current) {
      el.scrollTop = el.scrollHeight;
      setScrollTop(el.scrollTop);
    }
  }, [items.length, stickToEnd]);

  const total = items.length * rowHeight;
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((scrollTop + viewHeight) / rowHeight) + overscan);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <div
        key={i}
        role="row"
        aria-rowindex={i + 2}
        className={`vrow${onRowClick ? " vrow-click" : ""} ${rowClass?.(items[i]) ?? ""}`.trim()}
        style={{ top: i * rowHeight, height: rowHeight }}
        onClick={onRowClick ? () => onRowClick(items[i]) : undefined}
      >
        {render(items[i], i)}
      </div>,
    );
  }
  return (
    <div
      ref={box}
      className="vlist"
      style={{ height }}
      role="rowgroup"
      aria-label={label}
      tabIndex={0}
      onScroll={(e) => {
        const el = e.currentTarget;
        setScrollTop(el.scrollTop);
        atEnd.current = el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight;
      }}
    >
      <div style={{ height: total, position: "relative" }}>{rows}</div>
    </div>
  );
}
