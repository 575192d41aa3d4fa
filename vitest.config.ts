import { vitestSettings } from "./test/vitest-settings.js";

// Both folders: what `npx vitest run <file>` and `npx vitest` use. `npm test` runs the unit
// and integration configs one after the other instead.
export default vitestSettings(["test/unit/**/*.test.ts", "test/integration/**/*.test.ts"], {
  // The service the tests spawn runs compiled (test/helpers/service-entry.ts).
  globalSetup: ["./test/compiled-server-global.ts"],
});
