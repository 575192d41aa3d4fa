import { availableParallelism } from "node:os";
import { sharedModuleProjects, vitestSettings } from "./test/vitest-settings.js";

// Tests that start services, open sockets or spawn processes. The files of a worker share the
// product's modules, as the unit run's do (the integration run took 267 s where it took 354 on
// the 2-core machine, 373 CPU-s against 505).
export default sharedModuleProjects(
  vitestSettings([], {
    // The service the tests spawn runs compiled (test/helpers/service-entry.ts).
    globalSetup: ["./test/compiled-server-global.ts"],
    // One file per core (two at the least): most of an integration test's time is spent waiting
    // on a child process, a socket or a deadline, so two files side by side keep the cores busy
    // where vitest's default (cores - 1) ran them one by one on a 2-core machine. Every test
    // takes its ports from freePort() (claimed machine-wide) and its files from a folder of
    // its own, so files never meet.
    maxWorkers: Math.max(2, availableParallelism()),
  }),
  "test/integration",
  "integration",
);
