import {
  createConnection,
  createServer,
  type AddressInfo,
  type Server,
  type Socket,
} from "node:net";

/**
 * A TCP relay in front of a local service, so a test or a benchmark can take the network
 * away from a browser: `cut()` drops every connection in flight, and while `down` is true new
 * connections are closed as soon as they open. `target` is the service's port; it may be set
 * after the relay started (the relay's own address is often part of the service's options).
 */
export interface TcpRelay {
  server: Server;
  url: string;
  target: number;
  down: boolean;
  cut(): void;
  close(): Promise<void>;
}

export async function startRelay(target = 0): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (relay.down) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: "127.0.0.1", port: relay.target });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      // A cut connection errors on both sides; that is the point here.
      s.on("error", () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const relay: TcpRelay = {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    target,
    down: false,
    cut: () => {
      for (const s of sockets) s.destroy();
    },
    close: () => {
      relay.cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return relay;
}
