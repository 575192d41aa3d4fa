// Bundles the preload into the one CommonJS file Electron loads. A sandboxed preload can
// require `electron` (and a few Node built-ins) but no file of ours, so the channel names it
// imports from contract.ts are copied in here, at build time, instead of being written twice.
//
//   node preload/build.mjs [outfile]    (default: dist/main/preload/index.cjs)
import { build } from "esbuild";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** esbuild options of the preload bundle; the preload test builds with these too. */
export function preloadBuildOptions(outfile) {
  return {
    entryPoints: [join(root, "preload", "index.cts")],
    outfile,
    bundle: true,
    format: "cjs",
    // Node-style resolution; Node built-ins would stay `require` calls, which the preload
    // test refuses, so nothing but `electron` may be imported.
    platform: "node",
    // Electron 45 runs Chromium 142 and Node 22.
    target: ["chrome142", "node22"],
    external: ["electron"],
    legalComments: "none",
    logLevel: "warning",
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outfile = resolve(process.argv[2] ?? join(root, "dist", "main", "preload", "index.cjs"));
  await build(preloadBuildOptions(outfile));
}
