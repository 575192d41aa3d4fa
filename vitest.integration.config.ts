import { vitestSettings } from "./test/vitest-settings.js";

// Tests that start services, open sockets or spawn processes.
export default vitestSettings(["test/integration/**/*.test.ts"]);
