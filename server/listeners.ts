import type http from "node:http";
import type https from "node:https";
import type { IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import tls from "node:tls";

/** The sockets the services listen on, and how they open and close. */

export type AnyServer = http.Server | https.Server;

/**
 * A connection that has not sent a request yet is closed after this long without a byte.
 * Node's own header deadline (`headersTimeout`, 60 s) starts only with the first byte, so a
 * device could open connections that say nothing and hold them, and the process's file
 * descriptors with them, for ever. An HTTPS listener needs none: TLS closes a connection that
 * does not finish its handshake (`handshakeTimeout`, 120 s).
 */
export const FIRST_REQUEST_IDLE_MS = 30_000;

function closeSilentConnections(server: AnyServer, idleMs: number): void {
  if (server instanceof tls.Server) return;
  server.on("connection", (socket: Socket) => {
    socket.setTimeout(idleMs);
    socket.once("timeout", () => socket.destroy());
  });
  // From its first request on, a connection is the request's (long transfers, live streams);
  // between requests Node closes it after `keepAliveTimeout`.
  server.on("request", (req: IncomingMessage) => req.socket.setTimeout(0));
}

/** Listens on `host:port` (0 for any free port); resolves with the real port. */
export function listen(
  server: AnyServer,
  port: number,
  host: string,
  firstRequestIdleMs = FIRST_REQUEST_IDLE_MS,
): Promise<number> {
  // Large uploads and downloads may take longer than Node's default 5-minute request timeout;
  // stalled transfers are dropped by the service's own idle timeouts instead, and JSON bodies
  // have a deadline of their own (http/body-budget.ts).
  server.requestTimeout = 0;
  closeSilentConnections(server, firstRequestIdleMs);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export function closeServer(server: AnyServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // In-flight transfers are ended rather than waited for.
    server.closeAllConnections();
  });
}

/**
 * A request handler that answers 503 until the service's app is put in place, so a port can
 * be taken (and its real number known) before the service is built.
 */
export function lateApp(): {
  handler: http.RequestListener;
  serve(app: http.RequestListener): void;
} {
  let app: http.RequestListener | null = null;
  return {
    handler: (req, res) => (app ? app(req, res) : res.writeHead(503).end()),
    serve: (ready) => {
      app = ready;
    },
  };
}
