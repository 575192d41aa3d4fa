import net from "node:net";

/** What a raw exchange saw: the status of the first final answer (null when none came). */
export interface RawReply {
  status: number | null;
  /** Every byte the service sent, as text (status lines, headers, bodies). */
  text: string;
  /** The service closed or reset the connection (within the wait). */
  closed: boolean;
}

/** One step of a raw exchange, run in order on one connection. */
export type RawStep =
  | { write: string | Buffer }
  /** Waits until the service has sent text matching this (e.g. `100 Continue`). */
  | { waitFor: RegExp }
  | { pause: number }
  /** Half-close: FIN after the bytes written so far; the reading side stays open. */
  | { end: true }
  /** Abortive close (RST). */
  | { reset: true }
  /** Plain close of both directions. */
  | { destroy: true };

/**
 * Speaks HTTP/1.1 by hand over `node:net`, the way a hostile client can: bodies shorter than
 * announced, half-closes, resets. Resolves once the connection is gone or `settleMs` passed
 * after the last step, with whatever the service answered.
 */
export function rawExchange(port: number, steps: RawStep[], settleMs = 3000): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    let closed = false;
    let waiter: { re: RegExp; resolve: () => void } | null = null;
    socket.on("data", (b: Buffer) => {
      received += b.toString("latin1");
      if (waiter && waiter.re.test(received)) {
        const w = waiter;
        waiter = null;
        w.resolve();
      }
    });
    // Resets and EPIPE are expected here: the service may cut the connection.
    socket.on("error", () => undefined);
    let finish: (() => void) | null = null;
    socket.on("close", () => {
      closed = true;
      finish?.();
    });
    const reply = (): RawReply => {
      const finals = [...received.matchAll(/HTTP\/1\.1 (\d{3})/g)]
        .map((m) => Number(m[1]))
        .filter((s) => s >= 200);
      return { status: finals[0] ?? null, text: received, closed };
    };
    const run = async () => {
      await new Promise<void>((ok, fail) => {
        socket.once("connect", ok);
        socket.once("error", fail);
      });
      for (const step of steps) {
        if ("write" in step) {
          if (!socket.destroyed) socket.write(step.write);
        } else if ("waitFor" in step) {
          if (!step.waitFor.test(received)) {
            await new Promise<void>((ok, fail) => {
              const timer = setTimeout(() => fail(new Error(`no ${step.waitFor} seen`)), 5000);
              waiter = {
                re: step.waitFor,
                resolve: () => {
                  clearTimeout(timer);
                  ok();
                },
              };
            });
          }
        } else if ("pause" in step) {
          await new Promise((r) => setTimeout(r, step.pause));
        } else if ("end" in step) {
          socket.end();
        } else if ("reset" in step) {
          socket.resetAndDestroy();
        } else {
          socket.destroy();
        }
      }
      if (!closed) {
        await new Promise<void>((ok) => {
          const timer = setTimeout(ok, settleMs);
          finish = () => {
            clearTimeout(timer);
            ok();
          };
        });
      }
      if (!socket.destroyed) socket.destroy();
      resolve(reply());
    };
    run().catch((err: unknown) => {
      socket.destroy();
      reject(err instanceof Error ? err : new Error(String(err)));
    });
  });
}

/** The request head of a PUT, CRLF-terminated, with the given extra header lines. */
export function putHead(
  port: number,
  path: string,
  headers: Record<string, string | number>,
): string {
  const lines = [`PUT /api/v1${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
  lines.push(`Origin: http://127.0.0.1:${port}`);
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** One chunk of a chunked body. */
export function chunk(data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")]);
}
