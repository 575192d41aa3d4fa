import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blocks, printTable, request } from "./lib.js";
import { startGatehouse, type Gate } from "./transfer-gatehouse.js";

/**
 * What a resumable upload's cut requests cost the service: a part of `GiB` bytes (default 1)
 * is stored by one PATCH, then `N` requests (default 20) each send a PATCH head announcing 2
 * bytes, no body, and reset the connection: the "re-hashing for free". The service runs
 * as its own process (as `npm run serve` runs it); its CPU time (utime + stime from /proc) is
 * read before and after, once it has gone quiet. Usage: `npx tsx bench/resume-cost.ts [GiB] [N]`.
 */

const MIB = 1048576;
const OFFSET_TYPE = "application/offset+octet-stream";

/** CPU seconds a process has used so far (user + system). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the "pid (comm) " prefix.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Waits until the process has used under 10 ms of CPU over the last 300 ms. */
async function quiet(pid: number): Promise<void> {
  let last = cpuSeconds(pid);
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const now = cpuSeconds(pid);
    if (now - last < 0.01) return;
    last = now;
  }
}

/** A PATCH head announcing `length` bytes at `offset`, then a reset once the service has it. */
function cutRequest(g: Gate, path: string, token: string, offset: number): Promise<void> {
  const url = new URL(g.api);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.write(
        [
          `PATCH ${url.pathname}${path} HTTP/1.1`,
          `Host: ${url.host}`,
          `Origin: ${g.origin}`,
          "Tus-Resumable: 1.0.0",
          `Content-Type: ${OFFSET_TYPE}`,
          `Upload-Offset: ${offset}`,
          "Content-Length: 2",
          `Authorization: Bearer ${token}`,
          "",
          "",
        ].join("\r\n"),
      );
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => resolve());
  });
}

async function main(): Promise<void> {
  const gib = Number(process.argv[2] ?? 1);
  const n = Number(process.argv[3] ?? 20);
  const partBytes = Math.round(gib * 1024 * MIB);
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-resume-"));
  const g = await startGatehouse(dir);
  try {
    const pid = g.srv.proc.pid as number;
    const created = (await (
      await request(`${g.api}/uploads`, {
        method: "POST",
        keep: true,
        headers: { origin: g.origin, "content-type": "application/json" },
        body: JSON.stringify({ files: [{ name: "part.bin", size: partBytes + MIB }], days: 1 }),
      })
    ).body.toString()) as string;
    const up = JSON.parse(created) as { id: string; manage_token: string; files: [{ id: string }] };
    const path = `/uploads/${up.id}/files/${up.files[0].id}`;
    const auth = { authorization: `Bearer ${up.manage_token}`, origin: g.origin };
    const first = await request(`${g.api}${path}`, {
      method: "PATCH",
      keep: true,
      headers: {
        ...auth,
        "tus-resumable": "1.0.0",
        "content-type": OFFSET_TYPE,
        "upload-offset": "0",
        "content-length": String(partBytes),
      },
      upload: blocks(partBytes, randomBytes(MIB)),
    });
    if (first.status !== 204) throw new Error(`PATCH -> ${first.status} ${first.body.toString()}`);
    await quiet(pid);
    const before = cpuSeconds(pid);
    const t0 = performance.now();
    // One after another, each once the service is done with the last (one writer per file:
    // a request sent while the last still runs would be refused as busy, for nothing).
    for (let i = 0; i < n; i++) {
      await cutRequest(g, path, up.manage_token, partBytes);
      await quiet(pid);
    }
    const used = cpuSeconds(pid) - before;
    const wall = (performance.now() - t0) / 1000;
    printTable(`Resumable upload: ${n} cut PATCHes (Content-Length: 2, no body, reset)`, [
      {
        part: `${gib} GiB`,
        requests: n,
        "service CPU (s)": used.toFixed(2),
        "CPU per request (ms)": ((used / n) * 1000).toFixed(1),
        "wall (s), with the waits": wall.toFixed(1),
      },
    ]);
  } finally {
    await g.srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
