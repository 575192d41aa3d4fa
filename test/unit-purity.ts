import childProcess from "node:child_process";
import dgram from "node:dgram";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";
import workerThreads from "node:worker_threads";

/**
 * Setup file of the unit run (vitest.unit.config.ts): a unit test is pure, so opening a
 * socket, starting a process or a worker thread throws at once and names the way out. This
 * keeps `npm run test:unit` fast by rule rather than by habit; such tests go to
 * test/integration.
 */
function refuse(what: string): never {
  throw new Error(
    `A unit test may not ${what}: unit tests are pure (no socket, process or thread). ` +
      "Move this file to test/integration.",
  );
}

net.Server.prototype.listen = function listen(): never {
  refuse("listen on a socket");
} as typeof net.Server.prototype.listen;
net.Socket.prototype.connect = function connect(): never {
  refuse("open a connection");
} as typeof net.Socket.prototype.connect;

const processStarters = [
  "spawn",
  "spawnSync",
  "exec",
  "execSync",
  "execFile",
  "execFileSync",
  "fork",
] as const;
for (const name of processStarters) {
  (childProcess as unknown as Record<string, unknown>)[name] = () =>
    refuse(`start a process (${name})`);
}
(dgram as unknown as Record<string, unknown>).createSocket = () => refuse("open a UDP socket");
(workerThreads as unknown as Record<string, unknown>).Worker = class {
  constructor() {
    refuse("start a worker thread");
  }
};
// The named imports (`import { spawn } from "node:child_process"`) see the replacements too.
syncBuiltinESMExports();
