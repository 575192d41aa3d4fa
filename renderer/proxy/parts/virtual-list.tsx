import { useEffect, useRef, useState, type ReactNode, type RefObject } from "react";

/**
 * The rows: all of them (`items`), or a count and the rows known so far (`itemAt`; a row not
 * known yet is drawn empty), for a list held elsewhere (the connections worker).
 */
type Rows<T> =
  | { items: readonly T[]; count?: never; itemAt?: never }
  | { items?: never; count: number; itemAt(index: number): T | undefined };

type VirtualListProps<T> = Rows<T> & {
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
  /** Told which rows are drawn (end excluded) whenever that changes. */
  onRange?: (first: number, last: number) => void;
  /**
   * A row's own key (a connection's id), so a row's elements, focus included, stay with it
   * when the list changes under them; by default rows are keyed by position.
   */
  rowKey?: (item: T) => string;
};

/** The scrolling box's height, followed as it changes. */
function useViewHeight(box: RefObject<HTMLDivElement | null>): number {
  const [viewHeight, setViewHeight] = useState(400);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setViewHeight(el.clientHeight);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [box]);
  return viewHeight;
}

/** The rows from `first` to `last` (excluded), each placed at its own height. */
function drawnRows<T>(props: VirtualListProps<T>, first: number, last: number): ReactNode[] {
  const { items, itemAt, rowHeight, onRowClick, rowClass, rowKey, render } = props;
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) {
    const item = items ? items[i] : itemAt(i);
    const style = { top: i * rowHeight, height: rowHeight };
    if (item === undefined) {
      rows.push(
        <div
          key={`~${i}`}
          role="row"
          aria-rowindex={i + 2}
          className="vrow vrow-pending"
          style={style}
        />,
      );
      continue;
    }
    rows.push(
      <div
        key={rowKey ? rowKey(item) : i}
        role="row"
        aria-rowindex={i + 2}
        className={`vrow${onRowClick ? " vrow-click" : ""} ${rowClass?.(item) ?? ""}`.trim()}
        style={style}
        onClick={onRowClick ? () => onRowClick(item) : undefined}
      >
        {render(item, i)}
      </div>,
    );
  }
  return rows;
}

/**
 * Renders only the rows in view (plus a margin) inside a scrolling box, so thousands of
 * fixed-height rows cost what a screenful costs. Rows are absolutely placed in a spacer.
 */
export function VirtualList<T>(props: VirtualListProps<T>) {
  const { items, count, rowHeight, height, label, stickToEnd = false, overscan = 8 } = props;
  const { onRange } = props;
  const length = items ? items.length : count;
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const viewHeight = useViewHeight(box);
  const atEnd = useRef(true);

  useEffect(() => {
    const el = box.current;
    if (stickToEnd && el && atEnd.current) {
      el.scrollTop = el.scrollHeight;
      setScrollTop(el.scrollTop);
    }
  }, [length, stickToEnd]);

  const total = length * rowHeight;
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(length, Math.ceil((scrollTop + viewHeight) / rowHeight) + overscan);
  useEffect(() => onRange?.(first, last), [first, last, onRange]);
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
      <div style={{ height: total, position: "relative" }}>{drawnRows(props, first, last)}</div>
    </div>
  );
}
