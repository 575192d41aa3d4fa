import { availableParallelism } from "node:os";
import { vitestSettings } from "./test/vitest-settings.js";

// Pure tests: no socket, no child process, no thread, no service (test/unit-purity.ts refuses
// them at once, naming the way out: test/integration).
export default vitestSettings(["test/unit/**/*.test.ts"], {
  setupFiles: ["./test/unit-purity.ts"],
  // One file per core: pure tests keep a core busy each, and the main vitest process is idle
  // meanwhile (vitest's default of cores - 1 ran the files one by one on a 2-core machine).
  maxWorkers: availableParallelism(),
});
