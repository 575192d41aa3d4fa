/** Types of scripts/after-pack.mjs (plain JavaScript, as electron-builder loads its hooks). */
export function missingCoreFiles(coreDir: string, platform: string): string[];
export default function afterPack(context: {
  appOutDir: string;
  electronPlatformName: string;
  packager: { getResourcesDir(appOutDir: string): string };
}): Promise<void>;
