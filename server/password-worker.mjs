// The thread that computes password hashes (see password-hash.ts). Plain JavaScript, so the
// built app, `npm run serve` and the test runner all start it as it is.
//
// Jobs arrive as messages and are worked through back to back, without waiting for the main
// thread between two of them: a service whose event loop is busy still gets its hashes at the
// pace of this thread. Before each job every message that has arrived meanwhile is taken in,
// and account sign-ins go before pickups.
import { scryptSync } from "node:crypto";
import { parentPort, receiveMessageOnPort } from "node:worker_threads";

/** The same limit as password-hash.ts: what a stored hash may ask for. */
const MAXMEM = 64 * 1024 * 1024;

/** @typedef {{ id: number, lane: "account" | "pickup", password: string, salt: Uint8Array, length: number, cost: { N: number, r: number, p: number } }} Job */

/** @type {{ account: Job[], pickup: Job[] }} */
const queues = { account: [], pickup: [] };

/** @param {Job} job */
function take(job) {
  (job.lane === "account" ? queues.account : queues.pickup).push(job);
}

function work() {
  const port = /** @type {import("node:worker_threads").MessagePort} */ (parentPort);
  for (;;) {
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) take(m.message);
    const job = queues.account.shift() ?? queues.pickup.shift();
    if (!job) return;
    try {
      const key = scryptSync(job.password, job.salt, job.length, { ...job.cost, maxmem: MAXMEM });
      port.postMessage({ id: job.id, key });
    } catch (err) {
      port.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) });
    }
  }
}

parentPort?.on("message", (/** @type {Job} */ job) => {
  take(job);
  work();
});
