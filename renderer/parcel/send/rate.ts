/** Transfer speed over a sliding window of recent progress samples (bytes per second). */
export class RateMeter {
  private samples: Array<{ at: number; bytes: number }> = [];
  constructor(private windowMs = 5000) {}

  add(bytes: number, at = performance.now()): void {
    this.samples.push({ at, bytes });
    while (this.samples.length > 2 && at - this.samples[0].at > this.windowMs) this.samples.shift();
  }

  reset(): void {
    this.samples = [];
  }

  /** Bytes per second, or 0 until two samples at least 200 ms apart exist. */
  rate(): number {
    if (this.samples.length < 2) return 0;
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    const ms = last.at - first.at;
    if (ms < 200) return 0;
    return Math.max(0, ((last.bytes - first.bytes) * 1000) / ms);
  }
}
