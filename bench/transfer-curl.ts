import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { curlUpload } from "./curl-upload.js";
import { startChild } from "./lib.js";
import { openFile, pinned, startGatehouse } from "./transfer-gatehouse.js";
import type { Source } from "./transfer-rounds.js";

/** The `curl -T` uploads of both servers, in pairs: the ms of each, in pair order. */
export interface CurlPairs {
  gateMs: number[];
  nodeMs: number[];
  problems: string[];
}

/**
 * The file sent by `curl -T` to Gatehouse and to the same-work Node server, back to back, once
 * per run, the order swapped every pair (disk sync before each). A single upload's speed here
 * swings by a third from one minute to the next with the disk's write-back (377 to 587 MB/s
 * for the same upload in three tries on a quiet machine), so the two sides are measured side
 * by side rather than at the ends of their rounds, minutes apart. Gatehouse gets a fresh data
 * folder each pair: a stored copy would turn the upload into a deduplicated one.
 */
export async function curlPairs(src: Source, runs: number): Promise<CurlPairs> {
  const file = join(src.www, "curl.bin");
  const [cmd, args] = pinned(src.pin, process.execPath, [
    "--import",
    "tsx",
    "bench/baseline-server.ts",
  ]);
  const node = await startChild(cmd, args, /baseline listening on (\S+)/);
  const out: CurlPairs = { gateMs: [], nodeMs: [], problems: [] };
  try {
    for (let i = 0; i < runs; i++) {
      const dataDir = mkdtempSync(join(src.work, "gatehouse-curl-"));
      const g = await startGatehouse(dataDir, src.pin);
      try {
        const target = await openFile(g, src.size, 1);
        const gate = async (): Promise<void> => {
          execFileSync("sync", ["-f", src.work]);
          const r = await curlUpload(target.url, file, target.auth);
          if (r.status !== 200) out.problems.push(`curl -T upload: ${r.status} ${r.body}`);
          else if ((JSON.parse(r.body) as { sha256: string }).sha256 !== src.curlSha256)
            out.problems.push("the sha256 Gatehouse stored from curl -T differs from the source's");
          out.gateMs.push(r.ms);
        };
        const ref = async (): Promise<void> => {
          execFileSync("sync", ["-f", src.work]);
          const r = await curlUpload(`${node.url}/curl?durable`, file);
          if (r.body !== src.curlSha256)
            throw new Error(`the same-work Node server hashed other bytes from curl -T: ${r.body}`);
          out.nodeMs.push(r.ms);
        };
        if (i % 2 === 0) {
          await gate();
          await ref();
        } else {
          await ref();
          await gate();
        }
      } finally {
        await g.srv.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await node.stop();
  }
  return out;
}
