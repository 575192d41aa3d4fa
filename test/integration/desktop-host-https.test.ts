import { describe, expect, it } from "vitest";
import tls from "node:tls";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig, type GatehouseConfig } from "../../server/config.js";
import { startGatehouse } from "../../server/host.js";
import { createLogger } from "../../server/log.js";

/** The subjectAltName of the certificate the HTTPS listener presents now. */
function presentedNames(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
      const names = socket.getPeerCertificate().subjectaltname ?? "";
      socket.end();
      resolve(names);
    });
    socket.on("error", reject);
  });
}

describe("entries replaced while the services run, over HTTPS", () => {
  it("covers a new LAN address in the generated certificate without a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "gh-desktop-https-"));
    const config = parseConfig(
      [
        "--parcel-only",
        "--host",
        "127.0.0.1",
        "--parcel-port",
        "0",
        "--parcel-https-port",
        "0",
        "--data-dir",
        dataDir,
      ],
      {},
    ) as GatehouseConfig;
    const running = await startGatehouse(config, createLogger({ level: "silent" }));
    try {
      const parcel = running.parcel!;
      const httpsPort = Number(new URL(parcel.httpsUrl!).port);
      expect(await presentedNames(httpsPort)).not.toContain("192.168.77.9");

      const next = [parcel.url, parcel.httpsUrl!, `https://192.168.77.9:${httpsPort}`];
      expect(await running.setParcelEntries(next)).toEqual(next);
      expect(running.parcel?.entries).toEqual(next);
      expect(await presentedNames(httpsPort)).toContain("IP Address:192.168.77.9");
      // A bad address changes nothing.
      await expect(running.setParcelEntries(["https://192.168.77.9:1/x"])).rejects.toThrow();
      expect(running.parcel?.entries).toEqual(next);
    } finally {
      await running.stop();
    }
  });
});
