import { existsSync, readFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import { tightenEntries, writePrivateFile } from "./private-files.js";

export interface TlsMaterial {
  cert: string;
  key: string;
}

/**
 * The HTTPS certificate: the given files, or a self-signed one generated once into
 * `<dataDir>/tls/` whose SAN lists every entry host. A stored one is regenerated when an entry
 * host is missing from it (the machine got a new LAN address). The directory is 0700 and its
 * files 0600, re-applied on every start (the key must stay private; the rest follows the
 * data dir's rule).
 */
export async function loadOrCreateCertificate(
  dataDir: string,
  hosts: string[],
  given: { cert: string | null; key: string | null },
): Promise<TlsMaterial> {
  if (given.cert && given.key) {
    return { cert: readFileSync(given.cert, "utf8"), key: readFileSync(given.key, "utf8") };
  }
  const dir = join(dataDir, "tls");
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  const hostsFile = join(dir, "hosts.json");
  const wanted = [...new Set(hosts)].sort();
  tightenEntries(dir);
  if (existsSync(certFile) && existsSync(keyFile) && existsSync(hostsFile)) {
    const covered = new Set(JSON.parse(readFileSync(hostsFile, "utf8")) as string[]);
    if (wanted.every((h) => covered.has(h))) {
      return { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") };
    }
  }
  const notAfter = new Date();
  notAfter.setFullYear(notAfter.getFullYear() + 5);
  // Loaded only here: it is a large module and most starts reuse the stored certificate.
  const { default: selfsigned } = await import("selfsigned");
  const pems = await selfsigned.generate([{ name: "commonName", value: "Gatehouse" }], {
    keyType: "ec",
    algorithm: "sha256",
    notAfterDate: notAfter,
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: wanted.map((h) => (isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })),
      },
    ],
  });
  writePrivateFile(keyFile, pems.private);
  writePrivateFile(certFile, pems.cert);
  writePrivateFile(hostsFile, JSON.stringify(wanted));
  return { cert: pems.cert, key: pems.private };
}
