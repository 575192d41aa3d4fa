import { readFileSync } from "node:fs";

interface Queues {
  /** Bytes sent but not yet acknowledged by the peer's kernel. */
  tx: number;
  /** Bytes received but not yet read by the owning process. */
  rx: number;
}

/** The queues of the IPv4 TCP socket `127.0.0.1:local -> 127.0.0.1:remote`, from /proc/net/tcp. */
export function tcpQueues(local: number, remote: number): Queues | null {
  const hexPort = (p: number) => p.toString(16).toUpperCase().padStart(4, "0");
  const want = [`0100007F:${hexPort(local)}`, `0100007F:${hexPort(remote)}`];
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols[1] !== want[0] || cols[2] !== want[1]) continue;
    const [tx, rx] = cols[4].split(":").map((h) => parseInt(h, 16));
    return { tx, rx };
  }
  return null;
}

/**
 * Whether every byte the client sent on `clientPort` reached the server on `serverPort` and
 * was read by the server process: nothing unacknowledged on the client side, nothing unread on
 * the server side. This is how a test knows a request is inside the service (Linux only).
 */
export function requestConsumed(serverPort: number, clientPort: number): boolean {
  const client = tcpQueues(clientPort, serverPort);
  const server = tcpQueues(serverPort, clientPort);
  return client !== null && server !== null && client.tx === 0 && server.rx === 0;
}
