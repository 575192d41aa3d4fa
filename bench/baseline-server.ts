import { createHash } from "node:crypto";
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { Worker } from "node:worker_threads";

/** A thread that hashes what it is sent and answers the sha256 when sent "end". */
const HASH_THREAD = `
const { parentPort } = require("node:worker_threads");
const hash = require("node:crypto").createHash("sha256");
parentPort.on("message", (m) => {
  if (m === "end") parentPort.postMessage(hash.digest("hex"));
  else hash.update(m);
});`;

/** The reference: the least a Node server can do to move bytes between a socket and a disk. */
const dir = mkdtempSync(join(tmpdir(), "gatehouse-baseline-"));
const server = http.createServer((req, res) => {
  const name = (req.url ?? "/").split("?")[0].split("/").pop() ?? "x";
  const file = join(dir, name.replace(/[^\w.-]/g, "_"));
  if (req.method === "PUT" && (req.url ?? "").endsWith("?durable&thread")) {
    // The same work with the sha256 on a second thread: each piece is copied to the thread
    // (the disk write still needs it here), the digest comes back at the end.
    const thread = new Worker(HASH_THREAD, { eval: true });
    const temp = `${file}.part`;
    req.on("data", (chunk: Buffer) => thread.postMessage(chunk));
    pipeline(req, createWriteStream(temp, { flush: true })).then(
      () => {
        renameSync(temp, file);
        thread.once("message", (digest: string) => {
          res.end(digest);
          void thread.terminate();
        });
        thread.postMessage("end");
      },
      () => {
        void thread.terminate();
        res.destroy();
      },
    );
    return;
  }
  if (req.method === "PUT" && (req.url ?? "").endsWith("?durable")) {
    // The same mandatory work the service does for an upload, and nothing else (no CRC, no
    // accounting, no database): stream to a temporary file, sha256 of every byte, fsync
    // (flush) before the rename that makes the file visible, then answer the digest.
    const hash = createHash("sha256");
    const temp = `${file}.part`;
    req.on("data", (chunk: Buffer) => hash.update(chunk));
    pipeline(req, createWriteStream(temp, { flush: true })).then(
      () => {
        renameSync(temp, file);
        res.end(hash.digest("hex"));
      },
      () => res.destroy(),
    );
    return;
  }
  if (req.method === "PUT") {
    pipeline(req, createWriteStream(file)).then(
      () => res.end("ok"),
      () => res.destroy(),
    );
    return;
  }
  try {
    res.writeHead(200, {
      "Content-Length": statSync(file).size,
      "Content-Type": "application/octet-stream",
    });
    pipeline(createReadStream(file), res).catch(() => res.destroy());
  } catch {
    res.writeHead(404).end();
  }
});
server.listen(0, "127.0.0.1", () => {
  console.log(`baseline listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => {
  rmSync(dir, { recursive: true, force: true });
  server.close(() => process.exit(0));
});
