import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { checkConfig, type CheckResult } from "./check.js";
import { writeAtomic } from "./files.js";
import { checkableYaml } from "./geodata.js";

/**
 * Provider files a compiled configuration names that do not exist yet: they can be written
 * before the check, since there is nothing of the running configuration to keep in them.
 */
export function writeNewProviders(homeDir: string, providers: Map<string, string>): void {
  for (const [id, text] of providers) {
    const file = join(homeDir, "providers", `${id}.yaml`);
    if (!existsSync(file)) writeAtomic(file, text);
  }
}

/**
 * Runs `<bin> -t` on a compiled configuration, written (in its checkable form: no rules that
 * would make the core download geodata) to `name` in the core's home and removed after.
 */
export async function checkCompiled(
  bin: string,
  homeDir: string,
  yaml: string,
  name: string,
): Promise<CheckResult> {
  const file = join(homeDir, name);
  writeAtomic(file, checkableYaml(yaml, homeDir));
  try {
    return await checkConfig(bin, homeDir, file);
  } finally {
    rmSync(file, { force: true });
  }
}
