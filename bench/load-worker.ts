import { randomBytes, randomInt } from "node:crypto";
import { agentFor, call, cookieHeader, Recorder, takeCookies, type Answer } from "./load-client.js";
import type { LoadConfig, LoadMeasuring, LoadResult } from "./load-protocol.js";
import { openConsoles } from "./load-sse.js";

/**
 * The load process of the load benchmark (a process of its own, so the clients never share
 * the services' event loop): pickup clients, uploaders and proxy consoles, all at once for
 * the configured time. It gets its `LoadConfig` over IPC and answers one `LoadResult`.
 */

/** Every tenth download of each client is hashed and compared with the published file. */
const VERIFY_EVERY = 10;

/**
 * The two phases of a run: the start, where every client begins at the same moment (its
 * first cycle, connection included, is timed as a whole), then the measured phase, which
 * begins once every client has finished its first cycle.
 */
interface Phases {
  firstDone(): void;
  measuring: Promise<void>;
}

/** Runs a client: its timed first cycle, the wait for the others, then cycles until the end. */
async function drive(
  phases: Phases,
  first: Recorder,
  cycle: (measured: boolean) => Promise<boolean>,
): Promise<void> {
  const t0 = performance.now();
  if (await cycle(false)) first.ok(performance.now() - t0, 0);
  phases.firstDone();
  await phases.measuring;
  // After an error a client pauses, so a failing service is not hammered in a tight loop.
  while (!stopped) if (!(await cycle(true))) await pause();
}

interface PickupRecorders {
  open: Recorder;
  password: Recorder;
  download: Recorder;
}

interface UploadRecorders {
  create: Recorder;
  put: Recorder;
  publish: Recorder;
  revoke: Recorder;
}

let stopped = false;
const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));

function json(a: Answer): Record<string, unknown> {
  return JSON.parse(a.body.toString()) as Record<string, unknown>;
}

async function pickupClient(
  cfg: LoadConfig,
  index: number,
  phases: Phases,
  recs: { start: PickupRecorders; first: Recorder; load: PickupRecorders },
  counters: { cycles: number; verified: number },
): Promise<void> {
  const api = `${cfg.parcelUrl}/api/v1`;
  const agent = agentFor(1);
  // The first share of the clients picks up parcels with a password, the others parcels
  // without; each walks its targets.
  const locked = index < Math.round(cfg.pickupClients * cfg.passwordShare);
  const targets = cfg.pickupTargets.filter((t) => (t.password !== "") === locked);
  let round = 0;
  const cycle = async (measured: boolean): Promise<boolean> => {
    const rec = measured ? recs.load : recs.start;
    const t = targets[(index + round) % targets.length];
    round++;
    const jar = new Map<string, string>();
    const resolveRec = t.password ? rec.password : rec.open;
    try {
      const a = await call(`${api}/pickup/resolve`, {
        method: "POST",
        headers: { origin: cfg.parcelUrl, "content-type": "application/json" },
        body: JSON.stringify({ code: t.code, password: t.password }),
        keep: true,
        agent,
      });
      if (!resolveRec.answer(a, () => (a.headers["set-cookie"] ? null : "no pickup cookie")))
        return false;
      takeCookies(jar, a);
    } catch (err) {
      resolveRec.socketError(err);
      return false;
    }
    const verify = (round - 1) % VERIFY_EVERY === 0;
    try {
      const a = await call(`${api}/pickup/files/${t.fileId}/download`, {
        headers: { cookie: cookieHeader(jar) },
        hash: verify,
        agent,
      });
      const ok = rec.download.answer(a, () => {
        if (a.bytes !== t.size) return `short body (${a.bytes} of ${t.size} bytes)`;
        if (verify && a.sha256 !== t.sha256) return "bytes differ from the published file";
        return null;
      });
      if (ok && measured) counters.cycles++;
      if (ok && verify) counters.verified++;
      return ok;
    } catch (err) {
      rec.download.socketError(err);
      return false;
    }
  };
  try {
    await drive(phases, recs.first, cycle);
  } finally {
    agent.destroy();
  }
}

async function uploadClient(
  cfg: LoadConfig,
  index: number,
  phases: Phases,
  recs: { start: UploadRecorders; first: Recorder; load: UploadRecorders },
  counters: { cycles: number },
): Promise<void> {
  const api = `${cfg.parcelUrl}/api/v1`;
  const agent = agentFor(1);
  const template = randomBytes(cfg.uploadMaxBytes);
  const headers = { origin: cfg.parcelUrl, "content-type": "application/json" };
  let n = 0;
  const cycle = async (measured: boolean): Promise<boolean> => {
    const rec = measured ? recs.load : recs.start;
    n++;
    const size = randomInt(cfg.uploadMinBytes, cfg.uploadMaxBytes + 1);
    // Distinct bytes each time, so every upload stores a blob of its own (no dedup).
    const data = Buffer.from(template.subarray(0, size));
    data.writeUInt32BE(index, 0);
    data.writeUInt32BE(n, 4);
    const step = async (
      r: Recorder,
      url: string,
      method: string,
      auth: object,
      body?: string | Buffer,
    ) => {
      try {
        const a = await call(url, {
          method,
          headers: { ...headers, ...auth },
          body,
          keep: true,
          agent,
        });
        // An upload's figure is the bytes it sent, the other steps' the answer's.
        return r.answer(a, undefined, Buffer.isBuffer(body) ? body.length : a.bytes) ? a : null;
      } catch (err) {
        r.socketError(err);
        return null;
      }
    };
    const manifest = JSON.stringify({
      files: [{ name: `load-${index}-${n}.bin`, size }],
      downloads: 1,
      days: 1,
    });
    const created = await step(rec.create, `${api}/uploads`, "POST", {}, manifest);
    if (!created) return false;
    const c = json(created) as { id: string; manage_token: string; files: { id: string }[] };
    const auth = { authorization: `Bearer ${c.manage_token}` };
    if (!(await step(rec.put, `${api}/uploads/${c.id}/files/${c.files[0].id}`, "PUT", auth, data)))
      return false;
    if (!(await step(rec.publish, `${api}/uploads/${c.id}/publish`, "POST", auth))) return false;
    // The sender withdraws it again, so the run's disk use stays bounded.
    if (!(await step(rec.revoke, `${api}/parcels/${c.id}/revoke`, "POST", auth))) return false;
    if (measured) counters.cycles++;
    return true;
  };
  try {
    await drive(phases, recs.first, cycle);
  } finally {
    agent.destroy();
  }
}

const pickupRecorders = (): PickupRecorders => ({
  open: new Recorder("pickup: resolve code (no password)"),
  password: new Recorder("pickup: resolve code (password)"),
  download: new Recorder("pickup: download file"),
});

const uploadRecorders = (): UploadRecorders => ({
  create: new Recorder("upload: POST /uploads"),
  put: new Recorder("upload: PUT file bytes"),
  publish: new Recorder("upload: publish"),
  revoke: new Recorder("upload: revoke (frees the disk)"),
});

async function run(cfg: LoadConfig): Promise<LoadResult> {
  const pickup = {
    start: pickupRecorders(),
    first: new Recorder(`pickup: first resolve + download, ${cfg.pickupClients} clients at once`),
    load: pickupRecorders(),
  };
  const upload = {
    start: uploadRecorders(),
    first: new Recorder(`upload: first 4-request cycle, ${cfg.uploadClients} clients at once`),
    load: uploadRecorders(),
  };
  const pickupCounters = { cycles: 0, verified: 0 };
  const uploadCounters = { cycles: 0 };
  const clients = cfg.pickupClients + cfg.uploadClients;
  let waiting = clients;
  let begin = (): void => undefined;
  const phases: Phases = {
    measuring: new Promise<void>((resolve) => (begin = resolve)),
    firstDone: () => {
      if (--waiting === 0) begin();
    },
  };
  const consoles = openConsoles({
    proxyUrl: cfg.proxyUrl,
    cookies: cfg.consoleCookies,
    coreUrl: cfg.coreUrl,
    coreSecret: cfg.coreSecret,
    logsPerSecond: cfg.logsPerSecond,
  });
  // The consoles are open before the other clients start, as a dashboard left open is.
  await consoles.ready;
  let started = 0;
  let cpu = process.cpuUsage();
  let deadline: NodeJS.Timeout | undefined;
  void phases.measuring.then(() => {
    consoles.measure();
    started = performance.now();
    cpu = process.cpuUsage();
    deadline = setTimeout(() => (stopped = true), cfg.seconds * 1000);
    process.send?.({ kind: "measuring" } satisfies LoadMeasuring);
  });
  await Promise.all([
    ...Array.from({ length: cfg.pickupClients }, (_, i) =>
      pickupClient(cfg, i, phases, pickup, pickupCounters),
    ),
    ...Array.from({ length: cfg.uploadClients }, (_, i) =>
      uploadClient(cfg, i, phases, upload, uploadCounters),
    ),
  ]);
  clearTimeout(deadline);
  stopped = true;
  const elapsed = started > 0 ? (performance.now() - started) / 1000 : 0;
  const used = process.cpuUsage(cpu);
  await consoles.stop();
  for (const r of Object.values(pickup.start)) pickup.first.takeErrors(r);
  for (const r of Object.values(upload.start)) upload.first.takeErrors(r);
  return {
    kind: "result",
    start: [pickup.first.summary(), upload.first.summary(), consoles.opened.summary()],
    elapsed,
    measures: [
      ...Object.values(pickup.load).map((r) => r.summary()),
      ...Object.values(upload.load).map((r) => r.summary()),
      consoles.held.summary(),
      consoles.logLines().summary(),
      consoles.metrics().summary(),
      consoles.feeder.summary(),
    ],
    cycles: { pickup: pickupCounters.cycles, upload: uploadCounters.cycles },
    events: consoles.events(),
    disconnects: consoles.disconnects(),
    reconnects: consoles.reconnects(),
    verified: pickupCounters.verified,
    cpuSeconds: (used.user + used.system) / 1e6,
  };
}

process.once("message", (raw) => {
  run(raw as LoadConfig).then(
    (result) => process.send?.(result, () => process.exit(0)),
    (err: unknown) => {
      console.error(`load process failed: ${err instanceof Error ? err.stack : String(err)}`);
      process.exit(1);
    },
  );
});
// Ctrl-C reaches the whole process group: end the run early and report what was measured.
process.on("SIGINT", () => (stopped = true));
// The orchestrator owns this process; without it there is nobody to report to.
process.on("disconnect", () => process.exit(0));
