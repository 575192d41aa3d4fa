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

/**
 * Writes free ports into the proxy settings of a data dir before the service opens it, so a
 * core started from it listens where nothing else does (the defaults 7890 and 1053 are often
 * taken: another mihomo or Clash, another test). Answers the ports written.
 */
export async function freeProxyPorts(
  dataDir: string,
): Promise<{ mixedPort: number; dnsPort: number }> {
  const ports = { mixedPort: await freePort(), dnsPort: await freePort() };
  const { repos } = openProxyStorage(dataDir);
  try {
    repos.saveSettings({ ...repos.getSettings(), ...ports });
  } finally {
    repos.close();
  }
  return ports;
}
