import { resolve } from "node:path";
import { buildServerIfChanged } from "../scripts/build-server-if-changed.js";
import { COMPILED_SERVER_ENV } from "./helpers/service-entry.js";

/**
 * Vitest global set-up: compiles server/ into dist/serve once per run, only when a source
 * changed since the last compile, then tells the test processes (which inherit this
 * environment) to start the compiled service. A failed compile fails the run.
 */
export default async function setup(): Promise<void> {
  await buildServerIfChanged(resolve("."));
  process.env[COMPILED_SERVER_ENV] = "1";
}
