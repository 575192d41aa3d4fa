import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableRow, type Measure } from "./bench-table.js";
import { printTable } from "./lib.js";
import { ApiClient, startService } from "./proxy-client.js";
import { accountingPhase, blindSpotRows, countingRows, historyRows } from "./proxy-devices.js";
import { FAKE_CORE, freePort } from "./proxy-phases.js";

/**
 * The devices' rows of bench/proxy.ts alone (`npx tsx bench/proxy-devices-run.ts`): the
 * counting of 20,000 connections in a service process of its own, then the history and the
 * blind spot with the service in this process.
 */
async function counting(): Promise<Measure[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-bench-counting-"));
  const controllerPort = await freePort();
  const svc = await startService(dataDir, FAKE_CORE, controllerPort);
  try {
    const api = new ApiClient(svc.port);
    await api.signIn(svc.setupToken);
    const settings = await api.call<object>("GET", "/settings");
    const ports = { mixedPort: await freePort(), dnsPort: await freePort() };
    await api.call("PUT", "/settings", { ...settings, ...ports });
    await api.call("POST", "/system/service", { action: "start" });
    const secret = readFileSync(join(dataDir, "proxy", "core", "secret"), "utf8").trim();
    const c = await accountingPhase(api, svc, controllerPort, secret);
    return countingRows(c);
  } finally {
    await svc.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const rows = [...(await counting()), ...(await historyRows()), ...(await blindSpotRows())];
  printTable("Devices and traffic history", rows.map(tableRow));
  process.exit(rows.some((m) => tableRow(m).met === "NO") ? 1 : 0);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
