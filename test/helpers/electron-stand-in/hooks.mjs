/**
 * Module resolution hook (node:module `register`): `electron`, imported by electron-store and
 * by nothing else a test loads, resolves to the stand-in beside this file. Anything else, and
 * `electron` imported from any other module, resolves as usual.
 */
const STAND_IN = new URL("./electron.mjs", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === "electron" && /\/node_modules\/electron-store\//.test(context.parentURL ?? ""))
    return { url: STAND_IN, format: "module", shortCircuit: true };
  return nextResolve(specifier, context);
}
