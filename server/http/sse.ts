import type { Response } from "express";

/** Server-sent events with a write deadline: a write not flushed in time ends the stream. */
export class SseStream {
  private closed = false;
  private readonly onCloseHandlers: Array<() => void> = [];

  constructor(
    private readonly res: Response,
    private readonly writeDeadlineMs = 10_000,
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
    const payload = data === undefined ? "" : JSON.stringify(data);
    const head = id === undefined ? "" : `id: ${id.replace(/[\r\n]/g, "")}\n`;
    const text = `${head}event: ${event}\ndata: ${payload}\n\n`;
    const timer = setTimeout(() => this.close(), this.writeDeadlineMs);
    timer.unref();
    this.res.write(text, (err) => {
      clearTimeout(timer);
      if (err) this.close();
    });
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
