/* global require, exports */
/* eslint-disable @typescript-eslint/no-require-imports -- eslint-module-utils loads a resolver with require() */
// Import resolver for the layer lint (eslint-plugin-boundaries). Our TypeScript imports end in
// ".js" (Node's ES module rule), but the file on disk is .ts or .tsx; the stock Node resolver
// cannot see that, and an import it cannot resolve is never checked against the layers.
const fs = require("node:fs");
const path = require("node:path");
const nodeResolver = require("eslint-import-resolver-node");

function isFile(p) {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

exports.interfaceVersion = 2;

exports.resolve = function resolve(source, file, config) {
  if (source.startsWith(".") || source.startsWith("/")) {
    const base = path.resolve(path.dirname(file), source);
    const stem = base.replace(/\.(m?js|jsx)$/, "");
    const candidates = [
      base,
      `${stem}.ts`,
      `${stem}.tsx`,
      `${stem}.mts`,
      path.join(base, "index.ts"),
    ];
    const found = candidates.find(isFile);
    return found ? { found: true, path: found } : { found: false };
  }
  return nodeResolver.resolve(source, file, config);
};
