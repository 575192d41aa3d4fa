/** What a load has to show: the last good data, the last failure (null after a success). */
export interface LoadState<T> {
  data: T | null;
  failure: { err: unknown } | null;
  /** A load started by the first look, a new key or `reload()` is under way. */
  loading: boolean;
}

export interface LoaderOptions<T> {
  load(signal: AbortSignal): Promise<T>;
  publish(state: LoadState<T>): void;
  /** Whether a polling tick may run now (the desktop polls only while its window is seen). */
  mayPoll?(): boolean;
}

/**
 * The one loading machine of every page, free of React so its rules are tested alone: a new
 * load aborts the one under way, so an old slow answer never overwrites a newer one; a polling
 * tick is skipped while a load is under way and does not show "loading"; `stop()` aborts, keeps
 * the data and ignores whatever answers after it.
 */
export class Loader<T> {
  private state: LoadState<T> = { data: null, failure: null, loading: true };
  private current: AbortController | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly opts: LoaderOptions<T>) {}

  /** Loads now and then every `everyMs` (0: once). */
  start(everyMs = 0): Promise<void> {
    this.stop();
    if (everyMs > 0) this.timer = setInterval(() => this.poll(), everyMs);
    return this.reload();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.current?.abort();
    this.current = null;
  }

  /** Loads again now, in place of any load under way; settles when this load has. */
  reload(): Promise<void> {
    return this.run(true);
  }

  private poll(): void {
    if (this.current || (this.opts.mayPoll && !this.opts.mayPoll())) return;
    void this.run(false);
  }

  private async run(shown: boolean): Promise<void> {
    this.current?.abort();
    const ctrl = new AbortController();
    this.current = ctrl;
    if (shown && !this.state.loading) this.set({ loading: true });
    try {
      const data = await this.opts.load(ctrl.signal);
      if (!ctrl.signal.aborted) this.set({ data, failure: null, loading: false });
    } catch (err) {
      if (!ctrl.signal.aborted) this.set({ failure: { err }, loading: false });
    } finally {
      if (this.current === ctrl) this.current = null;
    }
  }

  private set(change: Partial<LoadState<T>>): void {
    this.state = { ...this.state, ...change };
    this.opts.publish(this.state);
  }
}
