import type http from "node:http";
import type https from "node:https";
import type { AddressInfo } from "node:net";

/** The sockets the services listen on, and how they open and close. */

export type AnyServer = http.Server | https.Server;

/** Listens on `host:port` (0 for any free port); resolves with the real port. */
export function listen(server: AnyServer, port: number, host: string): Promise<number> {
  // Large uploads and downloads may take longer than Node's default 5-minute request timeout;
  // stalled uploads are dropped by the service's own idle timeout instead.
  server.requestTimeout = 0;
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
