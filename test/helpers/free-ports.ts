import net, { type AddressInfo } from "node:net";
import { openProxyStorage } from "../../server/proxy/store/open-storage.js";

/** Ports this process was handed already: never the same one twice. */
const handedOut = new Set<number>();

/**
 * A port nothing listens on right now, asked from the OS (port 0), for a program that must be
 * told its port (the core's controller, mixed and DNS ports). Never one this process was given
 * before, so two ports asked in a row differ.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const server = net.createServer();
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((ok) => server.close(() => ok()));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

/** What holds each refused port shut: kept for the life of the process. */
const holders: net.Socket[] = [];

/**
 * A port on 127.0.0.1 that refuses every connection for as long as this process lives, for a
 * test that wants "nobody there" (an unreachable release server, a core that is not running).
 * A port from `freePort` is not enough: once closed, the OS may hand it to another test's
 * listener on port 0 (the other worker's fake core, say), which then answers instead of
 * refusing. This one is the local end of a connection this process keeps open: nothing
 * listens on it, and while that socket holds it no one else can bind it.
 */
export async function refusedPort(): Promise<number> {
  const server = net.createServer((accepted) => {
    accepted.on("error", () => {});
    holders.push(accepted);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  const client = net.connect(port, "127.0.0.1");
  client.on("error", () => {});
  await new Promise<void>((ok) => client.once("connect", ok));
  // Stop listening at once; the accepted connection lives on (so no awaiting close's callback).
  server.close();
  server.unref();
  client.unref();
  holders.push(client);
  const held = client.localPort;
  if (held === undefined) throw new Error("the holding connection has no local port");
  handedOut.add(held);
  return held;
}

/**
 * Writes free ports into the proxy settings of a data dir before the service opens it, so a
 * core started from it listens where nothing else does (the defaults 7890 and 1053 are often
 * taken: another mihomo or Clash, another test), or the ones given. Answers the ports written.
 */
export async function freeProxyPorts(
  dataDir: string,
  given: { mixedPort?: number } = {},
): Promise<{ mixedPort: number; dnsPort: number }> {
  const ports = { mixedPort: given.mixedPort ?? (await freePort()), dnsPort: await freePort() };
  const { repos } = openProxyStorage(dataDir);
  try {
    repos.saveSettings({ ...repos.getSettings(), ...ports });
  } finally {
    repos.close();
  }
  return ports;
}
