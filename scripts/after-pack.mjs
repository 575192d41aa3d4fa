// electron-builder's afterPack hook (electron-builder.yml): a packaged app without its proxy
// core, the core's geodata, licence and notice, or the manifest the services check the bundled
// geodata against, fails the build here. electron-builder itself only warns when an
// extraResources folder is missing, and an installer without its core would ship anyway.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * The files a packaged app's `<resources>/core` folder must hold, from the manifest beside
 * them: the core (`mihomo`, `mihomo.exe` on Windows), every pinned geodata file, the core's
 * licence and source notice, and the manifest itself. Answers what is missing (an empty list
 * when nothing is), each with why it matters.
 */
export function missingCoreFiles(coreDir, platform) {
  const missing = [];
  const manifestPath = join(coreDir, "manifest.json");
  let manifest = null;
  if (!existsSync(manifestPath))
    missing.push("manifest.json (the bundled geodata is checked against it)");
  else {
    try {
      manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    } catch {
      missing.push("manifest.json is not JSON");
    }
  }
  const exe = platform === "win32" ? "mihomo.exe" : "mihomo";
  const core = join(coreDir, exe);
  if (!existsSync(core) || statSync(core).size === 0) missing.push(`${exe} (the proxy core)`);
  else if (platform !== "win32" && (statSync(core).mode & 0o111) === 0)
    missing.push(`${exe} is not executable`);
  const geodata = manifest?.geodata?.files;
  if (manifest && !Array.isArray(geodata)) missing.push("manifest.json names no geodata files");
  for (const file of Array.isArray(geodata) ? geodata : []) {
    if (typeof file?.name !== "string") continue;
    if (!existsSync(join(coreDir, file.name))) missing.push(`${file.name} (geodata)`);
    if (typeof file.sha256 !== "string")
      missing.push(`${file.name} has no pinned sha256 in manifest.json`);
  }
  for (const name of ["LICENSE-mihomo.txt", "NOTICE-mihomo.txt"])
    if (!existsSync(join(coreDir, name))) missing.push(`${name} (the core is GPL-3.0)`);
  return missing;
}

/** The hook: `context` is electron-builder's AfterPackContext. */
export default async function afterPack(context) {
  const resources = context.packager.getResourcesDir(context.appOutDir);
  const platform = context.electronPlatformName;
  const missing = missingCoreFiles(join(resources, "core"), platform);
  if (missing.length > 0)
    throw new Error(
      `The packaged app has no complete proxy core in ${join(resources, "core")}: ${missing.join("; ")}. ` +
        "Run `npx tsx scripts/fetch-core.ts --platform <os>-<arch>` first (see resources/core/README.md).",
    );
}
