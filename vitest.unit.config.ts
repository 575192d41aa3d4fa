import { availableParallelism } from "node:os";
import { sharedModuleProjects, vitestSettings } from "./test/vitest-settings.js";

/**
 * Files that run each in a process of its own: they drive V8 to its stack limit on purpose
 * (documents nested a million deep). Run in a process other files had used, one of them
 * aborted it once ("RegExpCompiler Allocation failed": V8 compiled a regular expression with
 * the stack all but spent, `--no-isolate --sequence.shuffle --sequence.seed=55`).
 */
const OWN_PROCESS = ["test/unit/subscriptions-limits.test.ts"];

// Pure tests: no socket, no child process, no thread, no service (test/unit-purity.ts refuses
// them at once, naming the way out: test/integration). The files of a worker share the
// product's modules (46 s against 23 s for the run on the 2-core machine).
export default sharedModuleProjects(
  vitestSettings([], {
    setupFiles: ["./test/unit-purity.ts"],
    // One file per core: pure tests keep a core busy each, and the main vitest process is idle
    // meanwhile (vitest's default of cores - 1 ran the files one by one on a 2-core machine).
    maxWorkers: availableParallelism(),
  }),
  "test/unit",
  "unit",
  OWN_PROCESS,
);
