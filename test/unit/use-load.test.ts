import { afterEach, describe, expect, it, vi } from "vitest";
import { Loader, type LoadState } from "../../renderer/shared/ui/loader.js";

/** A load whose answer the test gives when it wants, with the signal it was started with. */
interface Pending {
  signal: AbortSignal;
  answer(value: string): void;
  fail(err: unknown): void;
}

function harness(opts: { mayPoll?(): boolean } = {}) {
  const calls: Pending[] = [];
  const states: Array<LoadState<string>> = [];
  const loader = new Loader<string>({
    load: (signal) =>
      new Promise<string>((resolve, reject) =>
        calls.push({ signal, answer: resolve, fail: reject }),
      ),
    publish: (s) => states.push(s),
    mayPoll: opts.mayPoll,
  });
  const last = () => states[states.length - 1];
  return { loader, calls, states, last };
}

afterEach(() => vi.useRealTimers());

describe("the pages' one loader", () => {
  it("aborts the load under way when a newer one starts; the old answer never overwrites", async () => {
    const { loader, calls, last } = harness();
    const first = loader.start();
    const second = loader.reload();
    expect(calls).toHaveLength(2);
    expect(calls[0].signal.aborted).toBe(true);
    expect(calls[1].signal.aborted).toBe(false);
    calls[1].answer("new");
    await second;
    calls[0].answer("old");
    await first;
    expect(last()).toEqual({ data: "new", failure: null, loading: false });
  });

  it("a new key (start again) keeps the last data while the next loads, then replaces it", async () => {
    const { loader, calls, last } = harness();
    const a = loader.start();
    calls[0].answer("a");
    await a;
    const b = loader.start();
    expect(last()).toEqual({ data: "a", failure: null, loading: true });
    calls[1].answer("b");
    await b;
    expect(last().data).toBe("b");
  });

  it("stop aborts and ignores whatever answers after it", async () => {
    const { loader, calls, states } = harness();
    const done = loader.start();
    loader.stop();
    expect(calls[0].signal.aborted).toBe(true);
    calls[0].fail(new DOMException("aborted", "AbortError"));
    await done;
    expect(states).toEqual([]);
  });

  it("keeps the last good data beside a failure, and clears the failure on the next success", async () => {
    const { loader, calls, last } = harness();
    const a = loader.start();
    calls[0].answer("a");
    await a;
    const boom = new Error("boom");
    const b = loader.reload();
    calls[1].fail(boom);
    await b;
    expect(last()).toEqual({ data: "a", failure: { err: boom }, loading: false });
    const c = loader.reload();
    calls[2].answer("c");
    await c;
    expect(last()).toEqual({ data: "c", failure: null, loading: false });
  });

  it("polls every interval quietly, skips a tick while a load is under way or when told not to", async () => {
    vi.useFakeTimers();
    let visible = true;
    const { loader, calls, states } = harness({ mayPoll: () => visible });
    void loader.start(1000);
    calls[0].answer("0");
    await vi.advanceTimersByTimeAsync(0);
    const shown = states.length;
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(2);
    // A tick does not announce "loading" (no flicker on every refresh).
    expect(states.length).toBe(shown);
    // The second load is still under way at the next tick: no third request piles up.
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(2);
    calls[1].answer("1");
    await vi.advanceTimersByTimeAsync(0);
    expect(states[states.length - 1].data).toBe("1");
    visible = false;
    await vi.advanceTimersByTimeAsync(3000);
    expect(calls).toHaveLength(2);
    visible = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(3);
    loader.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(calls).toHaveLength(3);
    expect(calls[2].signal.aborted).toBe(true);
  });
});
