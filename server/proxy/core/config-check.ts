import { rm } from "node:fs/promises";
import { join } from "node:path";
import { checkConfig, type CheckResult } from "./check.js";
import { writeAtomicAsync } from "./files.js";
import { checkableYaml, missingGeodata, neededGeodata } from "./geodata.js";

/**
 * Runs `<bin> -t` on a compiled configuration, written (in its checkable form: no rules that
 * would make the core download geodata) to `name` in the core's home and removed after.
 * `rules` (the compiled rule lines) spare reading the YAML again when no geodata is missing.
 */
export async function checkCompiled(
  bin: string,
  homeDir: string,
  yaml: string,
  name: string,
  rules?: readonly string[],
): Promise<CheckResult> {
  const file = join(homeDir, name);
  const complete =
    rules !== undefined && missingGeodata(homeDir, neededGeodata(rules)).length === 0;
  await writeAtomicAsync(file, complete ? yaml : checkableYaml(yaml, homeDir));
  try {
    return await checkConfig(bin, homeDir, file);
  } finally {
    await rm(file, { force: true });
  }
}
