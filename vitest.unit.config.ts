import { vitestSettings } from "./test/vitest-settings.js";

// Pure tests: no socket, no child process, no thread, no service (test/unit-purity.ts refuses
// them at once, naming the way out: test/integration).
export default vitestSettings(["test/unit/**/*.test.ts"], {
  setupFiles: ["./test/unit-purity.ts"],
});
