import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A minimal stand-in core executable (until/unless the shared fake core is used): `-v`,
 * `-t` (fails on configs naming bad.example), and `-d home -f config` serving a tiny
 * controller on the config's external-controller with its secret. A fresh process
 * starts with PROXY on its first member, as mihomo does without store-selected.
 */
const SCRIPT = `#!/usr/bin/env node
import { readFileSync } from "node:fs";
import http from "node:http";
const args = process.argv.slice(2);
if (args.includes("-v")) { console.log("Mihomo Meta v1.19.2 linux amd64 with go1.23"); process.exit(0); }
const file = args[args.indexOf("-f") + 1];
const text = readFileSync(file, "utf8");
if (args.includes("-t")) {
  if (text.includes("bad.example")) { console.log("configuration file " + file + " test failed"); process.exit(1); }
  console.log("configuration file " + file + " test is successful"); process.exit(0);
}
const port = Number(/external-controller: *"?127\\.0\\.0\\.1:(\\d+)/.exec(text)[1]);
const secret = (/\\nsecret: *"?([0-9a-f]+)/.exec(text) || [])[1] || "";
let now = "FIRST";
const server = http.createServer((req, res) => {
  if (secret && req.headers.authorization !== "Bearer " + secret) {
    res.writeHead(401, { "content-type": "application/json" }); return res.end('{"message":"Unauthorized"}');
  }
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const json = (s, o) => { res.writeHead(s, { "content-type": "application/json" }); res.end(JSON.stringify(o)); };
    if (req.url === "/version") return json(200, { meta: true, version: "v1.19.2" });
    if (req.url === "/proxies") return json(200, { proxies: { PROXY: { name: "PROXY", type: "Selector", now, all: [], history: [] } } });
    if (req.method === "PUT" && req.url === "/proxies/PROXY") { now = JSON.parse(body).name; res.writeHead(204); return res.end(); }
    if (req.method === "PUT" && req.url.startsWith("/configs")) { res.writeHead(204); return res.end(); }
    json(404, { message: "Resource not found" });
  });
});
server.listen(port, "127.0.0.1", () => console.log("RESTful API listening at: 127.0.0.1:" + port));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
`;

export function writeFakeCore(dir: string): string {
  const bin = join(dir, "fake-core.mjs");
  writeFileSync(bin, SCRIPT);
  chmodSync(bin, 0o755);
  return bin;
}
