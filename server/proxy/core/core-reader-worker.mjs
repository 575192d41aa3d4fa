// Entry of the worker thread that reads the core's big answers (see core-reader.ts). It runs
// in whichever form this checkout is in: the compiled sibling core-reader-worker.js (the built
// app), else the TypeScript source through tsx (`npm run serve`, the test runner, whose own
// transform does not reach worker threads).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = new URL("./core-reader-worker.js", import.meta.url);
if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else {
  const { tsImport } = await import("tsx/esm/api");
  await tsImport("./core-reader-worker.ts", import.meta.url);
}
