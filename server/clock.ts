import { DAY_S } from "./contract/time-units.js";

/** Time source injected into the services so tests move time without sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can move by hand. */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

export function unixSeconds(clock: Clock): number {
  return Math.floor(clock.now() / 1000);
}

/** Seconds from `unix` until the next UTC midnight (at least 1). */
export function secondsUntilUtcMidnight(unix: number): number {
  return Math.max(1, DAY_S - (unix % DAY_S));
}
