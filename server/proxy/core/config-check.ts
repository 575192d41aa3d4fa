import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { checkConfig, type CheckResult } from "./check.js";
import { writeAtomicAsync } from "./files.js";
import { checkableYaml, missingGeodata, neededGeodata } from "./geodata.js";

/**
 * Provider files a compiled configuration names that do not exist yet: they can be written
 * before the check, since there is nothing of the running configuration to keep in them.
 * Answers the ids written.
 */
export async function writeNewProviders(
  homeDir: string,
  providers: Map<string, string>,
): Promise<string[]> {
  const written: string[] = [];
  for (const [id, text] of providers) {
    const file = join(homeDir, "providers", `${id}.yaml`);
    if (existsSync(file)) continue;
    await writeAtomicAsync(file, text);
    written.push(id);
  }
  return written;
}

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
