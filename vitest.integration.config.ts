import { vitestSettings } from "./test/vitest-settings.js";

// Tests that start services, open sockets or spawn processes.
export default vitestSettings(["test/integration/**/*.test.ts"], {
  // The service the tests spawn runs compiled (test/helpers/service-entry.ts).
  globalSetup: ["./test/compiled-server-global.ts"],
});
