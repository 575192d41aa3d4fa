import { statSync } from "node:fs";
import { join } from "node:path";

/** Where the core that runs comes from, in the order they are preferred. */
export type CoreSource = "configured" | "installed" | "bundled" | "path";

export interface CoreLocation {
  path: string;
  source: CoreSource;
}

/** A core found without the service's help: shipped beside the app, or on PATH. */
export interface CoreFallback {
  path: string;
  source: "bundled" | "path";
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The executable's file name on this platform. */
export function coreFileName(platform: NodeJS.Platform = process.platform): string {
  return platform === "win32" ? "mihomo.exe" : "mihomo";
}

/**
 * Which core runs: the one the operator named (`--core-bin`), else the one Gatehouse installed
 * in `<data-dir>/core`, else the bundled one, else one on PATH. Asked again on every use: an
 * install or a rollback changes the answer while the service runs.
 */
export class CoreLocator {
  /** `<data-dir>/core`: the installed core, its predecessor and the install's temporary files. */
  readonly dir: string;
  readonly installedPath: string;
  readonly previousPath: string;

  constructor(
    private readonly opts: {
      dataDir: string;
      configured?: string;
      fallback?: CoreFallback;
      platform?: NodeJS.Platform;
    },
  ) {
    this.dir = join(opts.dataDir, "core");
    this.installedPath = join(this.dir, coreFileName(opts.platform));
    this.previousPath = join(this.dir, "mihomo.previous");
  }

  /** The operator chose the core with `--core-bin`: installing does not change what runs. */
  get configured(): boolean {
    return Boolean(this.opts.configured);
  }

  current(): CoreLocation | null {
    if (this.opts.configured) return { path: this.opts.configured, source: "configured" };
    if (isFile(this.installedPath)) return { path: this.installedPath, source: "installed" };
    const fallback = this.opts.fallback;
    if (fallback && isFile(fallback.path)) return { ...fallback };
    return null;
  }

  hasPrevious(): boolean {
    return isFile(this.previousPath);
  }
}

/** mihomo's names for this machine's OS and CPU, as its release assets spell them. */
export function releasePlatform(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): { os: string; arch: string } | null {
  const os = { linux: "linux", darwin: "darwin", win32: "windows", freebsd: "freebsd" }[
    platform as string
  ];
  const cpu = { x64: "amd64", arm64: "arm64", arm: "armv7", ia32: "386", riscv64: "riscv64" }[arch];
  return os && cpu ? { os, arch: cpu } : null;
}

/**
 * The asset names for this machine, best first: `mihomo-<os>-<arch>-<tag>.gz` (`.zip` on
 * Windows). On amd64 the `-compatible` build comes first when the release has it: the plain
 * one needs a recent CPU (x86-64-v3) and would not even answer `-v` on an older gateway.
 */
export function assetNames(
  tag: string,
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): string[] {
  const p = releasePlatform(platform, arch);
  if (!p) return [];
  const ext = platform === "win32" ? "zip" : "gz";
  const plain = `mihomo-${p.os}-${p.arch}-${tag}.${ext}`;
  return p.arch === "amd64" ? [`mihomo-${p.os}-amd64-compatible-${tag}.${ext}`, plain] : [plain];
}
