import type { Response } from "express";

/** Bytes an SSE stream may have waiting for its reader before it is dropped. */
export const SSE_MAX_BUFFERED = 64 * 1024;

/**
 * Server-sent events for a reader that keeps up: a write not flushed in time ends the stream,
 * and so does an event that would be queued behind more than `maxBuffered` bytes the reader
 * has not taken (the socket's buffers are full). A client that stops reading costs its
 * buffers, never an ever-growing queue in the service.
 */
export class SseStream {
  private closed = false;
  private readonly onCloseHandlers: Array<() => void> = [];

  constructor(
    private readonly res: Response,
    private readonly writeDeadlineMs = 10_000,
    private readonly maxBuffered = SSE_MAX_BUFFERED,
  ) {
    res.status(200);
    res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
    res.setHeader("Cache-Control", "no-cache");
    res.setHeader("X-Accel-Buffering", "no");
    res.setHeader("Connection", "keep-alive");
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    res.on("close", () => this.close());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  onClose(handler: () => void): void {
    if (this.closed) handler();
    else this.onCloseHandlers.push(handler);
  }

  /**
   * Sends one event; `data` undefined sends an event with an empty data line. An `id` (no line
   * breaks) comes back as Last-Event-ID when the browser reconnects.
   */
  send(event: string, data?: unknown, id?: string): void {
    if (this.closed) return;
    // The reader stopped reading: dropped now rather than queue more for it.
    if (this.res.writableLength > this.maxBuffered) return this.drop();
    const payload = data === undefined ? "" : JSON.stringify(data);
    const head = id === undefined ? "" : `id: ${id.replace(/[\r\n]/g, "")}\n`;
    const text = `${head}event: ${event}\ndata: ${payload}\n\n`;
    const timer = setTimeout(() => this.drop(), this.writeDeadlineMs);
    timer.unref();
    this.res.write(text, (err) => {
      clearTimeout(timer);
      if (err) this.close();
    });
  }

  /** Ends the stream without waiting for its reader: what it has not taken is discarded. */
  private drop(): void {
    this.close();
    this.res.destroy();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const h of this.onCloseHandlers.splice(0)) {
      try {
        h();
      } catch {
        // a close handler must not stop the others
      }
    }
    if (!this.res.writableEnded) this.res.end();
  }
}
