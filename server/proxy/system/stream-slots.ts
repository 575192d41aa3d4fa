import { DomainError } from "../../domain-errors.js";

/** Live streams (`/events`, `/logs`) one session may hold open at once. */
export const STREAMS_PER_SESSION = 8;

/**
 * Counts the live streams each session holds. A stream takes its slot in the same synchronous
 * step as the check, before anything is sent, so no burst of requests gets past the limit;
 * the slot is given back when the stream closes, whichever side closes it.
 */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(private readonly max = STREAMS_PER_SESSION) {}

  /** Takes a slot of `sessionId` (429 `stream.limit` when none is free); answers its release. */
  take(sessionId: string): () => void {
    const n = this.open.get(sessionId) ?? 0;
    if (n >= this.max) {
      throw new DomainError(
        "rate_limited",
        "stream.limit",
        `This session already has ${this.max} live streams open; close another window or tab of the console first`,
        { params: { max: this.max }, headers: { "Retry-After": "5" } },
      );
    }
    this.open.set(sessionId, n + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.open.get(sessionId) ?? 1) - 1;
      if (left > 0) this.open.set(sessionId, left);
      else this.open.delete(sessionId);
    };
  }

  /** Streams `sessionId` holds now. */
  held(sessionId: string): number {
    return this.open.get(sessionId) ?? 0;
  }
}
