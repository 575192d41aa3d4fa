// Entry of the worker thread that reads subscription documents (see parse-pool.ts). It runs
// in whichever form this checkout is in: the compiled sibling parse-worker.js (the built
// app), else the TypeScript source through tsx (`npm run serve`, the test runner, whose own
// transform does not reach worker threads).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = new URL("./parse-worker.js", import.meta.url);
if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else {
  const { tsImport } = await import("tsx/esm/api");
  await tsImport("./parse-worker.ts", import.meta.url);
}
