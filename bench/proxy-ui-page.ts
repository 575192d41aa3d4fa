import type { Page } from "@playwright/test";
import { cpuMeter, type CpuFigures } from "./proxy-ui-cpu.js";

/**
 * The browser side of the connections-table benchmark: what a person does on the page
 * (waits, scrolls, types a search, changes the order) and a recorder of every frame the
 * page draws meanwhile: the gaps between animation frames, and the browser's own reports of
 * long animation frames and long tasks.
 */

export interface FrameRecord {
  /** Milliseconds between consecutive animation frames. */
  gaps: number[];
  /** Durations of the browser's `long-animation-frame` entries (frames over 50 ms). */
  longFrames: number[];
  /** Durations of `longtask` entries (main-thread tasks over 50 ms). */
  longTasks: number[];
  /** What the browser says filled each long animation frame (scripts, style and layout). */
  notes: string[];
  cpu: CpuFigures;
}

export interface FrameFigures {
  frames: number;
  /** The longest frame: the longest gap between animation frames or long animation frame. */
  max: number;
  /** Frames over 50 ms (by gap or by the browser's report, whichever counts more). */
  over50: number;
  p99: number;
  longTasks: number;
  /** The browser's account of the long frames, longest first. */
  notes: string[];
  cpu: CpuFigures;
}

/** Frames longer than this are what "responsive" rules out. */
export const LONG_FRAME_MS = 50;
/**
 * Animation frames start on the display's beat: three beats at 60 Hz are 50.0 ms give or take
 * a rounding, which is 50 ms, not over it.
 */
const BEAT_SLACK_MS = 0.5;

interface Recorder {
  on: boolean;
  gaps: number[];
  longFrames: number[];
  longTasks: number[];
  notes: string[];
}

/**
 * The recorder, as plain JavaScript run in the page (source text: the bundler that runs this
 * file would otherwise wrap its inner functions in helpers the page does not have).
 */
const RECORDER = `(() => {
  if (window.__frames) return;
  const rec = { on: false, gaps: [], longFrames: [], longTasks: [], notes: [] };
  window.__frames = rec;
  let last = performance.now();
  function tick(t) {
    if (rec.on) rec.gaps.push(t - last);
    last = t;
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
  function watch(type, key) {
    try {
      new PerformanceObserver(function (list) {
        if (rec.on) for (const e of list.getEntries()) rec[key].push(e.duration);
      }).observe({ type, buffered: false });
    } catch {
      // an older browser without this entry type: the frame gaps still count
    }
  }
  watch("long-animation-frame", "longFrames");
  try {
    new PerformanceObserver(function (list) {
      if (!rec.on) return;
      for (const e of list.getEntries()) {
        const scripts = (e.scripts || [])
          .map((s) => s.invoker + " " + Math.round(s.duration) + " ms")
          .join(", ");
        const end = e.startTime + e.duration;
        rec.notes.push(
          Math.round(e.duration) + " ms: blocking " + Math.round(e.blockingDuration) +
            " ms, rendering " + Math.round(e.renderStart ? end - e.renderStart : 0) +
            " ms, style and layout " +
            Math.round(e.styleAndLayoutStart ? end - e.styleAndLayoutStart : 0) + " ms" +
            (scripts ? "; scripts: " + scripts : ""),
        );
      }
    }).observe({ type: "long-animation-frame", buffered: false });
  } catch {
    // no attribution in this browser
  }
  watch("longtask", "longTasks");
})()`;

/** Starts the page's frame recorder (idle until `record` turns it on). */
export async function installRecorder(page: Page): Promise<void> {
  await page.evaluate(RECORDER);
}

/** Records every frame while `act` runs. */
export async function record(page: Page, act: () => Promise<void>): Promise<FrameRecord> {
  await page.evaluate(() => {
    const rec = (window as unknown as { __frames: Recorder }).__frames;
    rec.gaps = [];
    rec.longFrames = [];
    rec.longTasks = [];
    rec.notes = [];
    rec.on = true;
  });
  const meter = await cpuMeter(page);
  await act();
  const cpu = await meter();
  // Entries of the last frames arrive a moment after them.
  await page.waitForTimeout(200);
  const frames = await page.evaluate(() => {
    const rec = (window as unknown as { __frames: Recorder }).__frames;
    rec.on = false;
    return {
      gaps: rec.gaps,
      longFrames: rec.longFrames,
      longTasks: rec.longTasks,
      notes: rec.notes,
    };
  });
  return { ...frames, cpu };
}

export function figures(r: FrameRecord): FrameFigures {
  const sorted = [...r.gaps].sort((a, b) => a - b);
  const p99 = sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))]
    : 0;
  return {
    frames: r.gaps.length,
    max: Math.max(0, ...r.gaps, ...r.longFrames),
    over50: Math.max(
      r.gaps.filter((g) => g > LONG_FRAME_MS + BEAT_SLACK_MS).length,
      r.longFrames.filter((d) => d > LONG_FRAME_MS).length,
    ),
    p99,
    longTasks: r.longTasks.length,
    notes: [...r.notes].sort((a, b) => parseFloat(b) - parseFloat(a)),
    cpu: r.cpu,
  };
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** The list of rows (the scrolling box). */
const LIST = ".conn-table .vlist";

/** A person watching the table: nothing to do but let it update. */
export async function idle(page: Page, ms: number): Promise<void> {
  await page.waitForTimeout(ms);
}

/** Wheel scrolling down the table, with a drag of the scroll bar to elsewhere now and then. */
export async function scroll(page: Page, ms: number): Promise<void> {
  const box = await page.locator(LIST).boundingBox();
  if (!box) throw new Error("the connections list is not on screen");
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const end = Date.now() + ms;
  let step = 0;
  while (Date.now() < end) {
    if (++step % 40 === 0) {
      // A jump (the scroll bar dragged): rows the page has not seen yet.
      await page
        .locator(LIST)
        .evaluate((el, f) => (el.scrollTop = f * el.scrollHeight), ((step * 37) % 100) / 100);
    } else {
      await page.mouse.wheel(0, step % 80 < 60 ? 240 : -240);
    }
    await sleep(30);
  }
}

/** Typing searches letter by letter, as a person does, and clearing them. */
export async function search(page: Page, ms: number): Promise<void> {
  const box = page.locator('main input[type="search"]');
  const end = Date.now() + ms;
  const words = ["h12", "video", "192.168.1.5", "tcp", "h40.cdn", "match"];
  let i = 0;
  while (Date.now() < end) {
    await box.click();
    await page.keyboard.type(words[i++ % words.length], { delay: 120 });
    await sleep(400);
    await box.press("Control+a");
    await box.press("Backspace");
    await sleep(300);
  }
}

/** Changing the order by each column in turn, both ways. */
export async function sort(page: Page, ms: number): Promise<void> {
  const heads = page.locator('.conn-table [role="columnheader"] button');
  const count = await heads.count();
  const end = Date.now() + ms;
  let i = 0;
  while (Date.now() < end) {
    await heads.nth(i++ % count).click();
    await sleep(600);
  }
}
