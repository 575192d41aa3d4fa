import { availableParallelism } from "node:os";
import { vitestSettings } from "./test/vitest-settings.js";

/**
 * Files that run each in a process of its own: they drive V8 to its stack limit on purpose
 * (documents nested a million deep). Run in a process other files had used, one of them
 * aborted it once ("RegExpCompiler Allocation failed": V8 compiled a regular expression with
 * the stack all but spent, `--no-isolate --sequence.shuffle --sequence.seed=55`).
 */
const OWN_PROCESS = ["test/unit/subscriptions-limits.test.ts"];

// Each project names its files (a project that extends the settings adds to their list).
const base = vitestSettings([], {
  setupFiles: ["./test/unit-purity.ts"],
  // One file per core: pure tests keep a core busy each, and the main vitest process is idle
  // meanwhile (vitest's default of cores - 1 ran the files one by one on a 2-core machine).
  maxWorkers: availableParallelism(),
});

// Pure tests: no socket, no child process, no thread, no service (test/unit-purity.ts refuses
// them at once, naming the way out: test/integration). Pure tests share their modules: each
// worker imports the product's modules once instead of once per file (vitest's isolation),
// which was half of this run's time (46 s against 23 s on the 2-core machine). A test file
// that changes something global puts it back in an afterEach (fake timers, stubbed globals).
export default {
  ...base,
  test: {
    ...base.test,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          exclude: OWN_PROCESS,
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: "unit, own process", include: OWN_PROCESS, isolate: true },
      },
    ],
  },
};
