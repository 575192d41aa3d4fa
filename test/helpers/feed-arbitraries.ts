import fc from "fast-check";
import type { MihomoProxy } from "../../server/proxy/types.js";

/**
 * fast-check generators for subscription feeds: one valid node of each share-link scheme,
 * as the link a provider writes and the mihomo object the parser must make of it, plus the
 * serialisations of a whole feed (URI list, base64, Clash YAML with and without anchors and
 * merge keys, SIP008).
 */

export interface GeneratedNode {
  link: string;
  node: MihomoProxy;
}

const b64url = (text: string | Uint8Array): string =>
  Buffer.from(text).toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const enc = encodeURIComponent;

/** Printable text with the characters links and YAML treat specially, CJK and emoji. */
const textChar = fc.constantFrom(
  ..."abcxyzABC0189 -_.~!$&'()*+,;=:@/?#[]{}%|\"\\<>^`香港東京🇭🇰🚀é".split(/(?:)/u),
);
const cleanText = (min: number, max: number): fc.Arbitrary<string> =>
  fc
    .array(textChar, { minLength: min, maxLength: max })
    .map((cs) => cs.join(""))
    .filter((s) => s.trim() === s && s.length >= min);

export const nodeName = cleanText(1, 16);
/** A secret: anything printable with at least one non-blank character. */
const secret = fc
  .array(textChar, { minLength: 1, maxLength: 20 })
  .map((cs) => cs.join(""))
  .filter((s) => s.trim() !== "");
const word = fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/);
const port = fc.integer({ min: 1, max: 65_535 });
const host = fc.oneof(
  { weight: 3, arbitrary: fc.domain() },
  { weight: 1, arbitrary: fc.ipV4() },
  { weight: 1, arbitrary: fc.ipV6() },
);
/** A host as it appears in a link: IPv6 in brackets. */
const inLink = (h: string): string => (h.includes(":") ? `[${h}]` : h);
const key32 = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((b) => Buffer.from(b).toString("base64"));
const SS_METHODS = [
  "aes-128-gcm",
  "aes-256-gcm",
  "chacha20-ietf-poly1305",
  "2022-blake3-aes-128-gcm",
];

const ss = fc
  .record({ name: nodeName, server: host, port, cipher: fc.constantFrom(...SS_METHODS) })
  .chain((n) => fc.record({ n: fc.constant(n), password: secret, form: fc.nat(2) }))
  .map(({ n, password, form }): GeneratedNode => {
    const node: MihomoProxy = { ...n, type: "ss", password, udp: true };
    const creds = `${n.cipher}:${password}`;
    const at = `${inLink(n.server)}:${n.port}`;
    const link =
      form === 0
        ? `ss://${b64url(creds)}@${at}#${enc(n.name)}` // SIP002, base64 user info
        : form === 1
          ? `ss://${enc(n.cipher)}:${enc(password)}@${at}#${enc(n.name)}` // SIP022 style
          : `ss://${Buffer.from(`${creds}@${at}`).toString("base64")}#${enc(n.name)}`; // legacy
    return { link, node };
  });

const ssr = fc
  .record({
    name: nodeName,
    server: host,
    port,
    cipher: fc.constantFrom("aes-256-cfb", "chacha20", "none"),
    protocol: fc.constantFrom("origin", "auth_aes128_md5", "auth_chain_a"),
    obfs: fc.constantFrom("plain", "http_simple", "tls1.2_ticket_auth"),
    password: secret,
    obfsParam: fc.option(fc.domain(), { nil: undefined }),
  })
  .map((n): GeneratedNode => {
    const params = [`remarks=${b64url(n.name)}`];
    if (n.obfsParam) params.push(`obfsparam=${b64url(n.obfsParam)}`);
    const main = [inLink(n.server), n.port, n.protocol, n.cipher, n.obfs, b64url(n.password)];
    const node: MihomoProxy = {
      name: n.name,
      type: "ssr",
      server: n.server,
      port: n.port,
      cipher: n.cipher,
      password: n.password,
      obfs: n.obfs,
      protocol: n.protocol,
      udp: true,
    };
    if (n.obfsParam) node["obfs-param"] = n.obfsParam;
    return { link: `ssr://${b64url(`${main.join(":")}/?${params.join("&")}`)}`, node };
  });

/** `ws` with a path and Host header, or plain TCP; the same for vmess, vless and trojan. */
const ws = fc.option(fc.record({ path: word.map((w) => `/${w}`), host: fc.domain() }), {
  nil: undefined,
});
const wsFields = (w: { path: string; host: string } | undefined): Record<string, unknown> =>
  w ? { network: "ws", "ws-opts": { path: w.path, headers: { Host: w.host } } } : {};

const vmess = fc
  .record({
    name: nodeName,
    server: host,
    port,
    uuid: fc.uuid(),
    tls: fc.boolean(),
    sni: fc.option(fc.domain(), { nil: undefined }),
    ws,
  })
  .map((n): GeneratedNode => {
    const json = {
      v: "2", ps: n.name, add: n.server, port: String(n.port), id: n.uuid, aid: "0", scy: "auto",
      net: n.ws ? "ws" : "tcp", type: "none", host: n.ws?.host ?? "", path: n.ws?.path ?? "",
      tls: n.tls ? "tls" : "", sni: n.sni ?? "",
    }; // prettier-ignore
    const node: MihomoProxy = {
      name: n.name, type: "vmess", server: n.server, port: n.port, uuid: n.uuid, alterId: 0,
      cipher: "auto", udp: true, ...wsFields(n.ws),
    }; // prettier-ignore
    if (n.tls) {
      node.tls = true;
      const servername = n.sni ?? n.ws?.host;
      if (servername) node.servername = servername;
    }
    return { link: `vmess://${Buffer.from(JSON.stringify(json)).toString("base64")}`, node };
  });

const vless = fc
  .record({ name: nodeName, server: host, port, uuid: fc.uuid(), sni: fc.option(fc.domain(), { nil: undefined }), vision: fc.boolean(), ws })
  .map((n): GeneratedNode => {
    const q = ["encryption=none", "security=tls", `type=${n.ws ? "ws" : "tcp"}`];
    if (n.sni) q.push(`sni=${enc(n.sni)}`);
    if (n.vision) q.push("flow=xtls-rprx-vision");
    if (n.ws) q.push(`path=${enc(n.ws.path)}`, `host=${enc(n.ws.host)}`);
    const node: MihomoProxy = {
      name: n.name, type: "vless", server: n.server, port: n.port, uuid: n.uuid, udp: true,
      tls: true, ...wsFields(n.ws),
    }; // prettier-ignore
    if (n.sni) node.servername = n.sni;
    if (n.vision) node.flow = "xtls-rprx-vision";
    const link = `vless://${n.uuid}@${inLink(n.server)}:${n.port}?${q.join("&")}#${enc(n.name)}`;
    return { link, node };
  }); // prettier-ignore

const trojan = fc
  .record({ name: nodeName, server: host, port, password: secret, sni: fc.option(fc.domain(), { nil: undefined }), ws })
  .map((n): GeneratedNode => {
    const q: string[] = [];
    if (n.sni) q.push(`sni=${enc(n.sni)}`);
    if (n.ws) q.push("type=ws", `path=${enc(n.ws.path)}`, `host=${enc(n.ws.host)}`);
    const node: MihomoProxy = {
      name: n.name, type: "trojan", server: n.server, port: n.port, password: n.password,
      udp: true, ...wsFields(n.ws),
    }; // prettier-ignore
    if (n.sni) node.sni = n.sni;
    const query = q.length ? `?${q.join("&")}` : "";
    return { link: `trojan://${enc(n.password)}@${inLink(n.server)}:${n.port}${query}#${enc(n.name)}`, node };
  }); // prettier-ignore

const hysteria2 = fc
  .record({ name: nodeName, server: host, port, password: secret, scheme: fc.constantFrom("hysteria2", "hy2"), sni: fc.option(fc.domain(), { nil: undefined }), obfs: fc.option(secret, { nil: undefined }) })
  .map((n): GeneratedNode => {
    const q: string[] = [];
    if (n.sni) q.push(`sni=${enc(n.sni)}`);
    if (n.obfs) q.push("obfs=salamander", `obfs-password=${enc(n.obfs)}`);
    const node: MihomoProxy = { name: n.name, type: "hysteria2", server: n.server, port: n.port, password: n.password };
    if (n.sni) node.sni = n.sni;
    if (n.obfs) Object.assign(node, { obfs: "salamander", "obfs-password": n.obfs });
    const query = q.length ? `/?${q.join("&")}` : "";
    return { link: `${n.scheme}://${enc(n.password)}@${inLink(n.server)}:${n.port}${query}#${enc(n.name)}`, node };
  }); // prettier-ignore

const tuic = fc
  .record({ name: nodeName, server: host, port, uuid: fc.uuid(), password: secret, cc: fc.option(fc.constantFrom("bbr", "cubic"), { nil: undefined }), alpn: fc.boolean() })
  .map((n): GeneratedNode => {
    const q: string[] = [];
    if (n.cc) q.push(`congestion_control=${n.cc}`);
    if (n.alpn) q.push("alpn=h3");
    const node: MihomoProxy = { name: n.name, type: "tuic", server: n.server, port: n.port, uuid: n.uuid, password: n.password, udp: true };
    if (n.cc) node["congestion-controller"] = n.cc;
    if (n.alpn) node.alpn = ["h3"];
    const query = q.length ? `?${q.join("&")}` : "";
    return { link: `tuic://${n.uuid}:${enc(n.password)}@${inLink(n.server)}:${n.port}${query}#${enc(n.name)}`, node };
  }); // prettier-ignore

const wireguard = fc
  .record({ name: nodeName, server: host, port, privateKey: key32, publicKey: key32, ip: fc.ipV4(), mtu: fc.option(fc.integer({ min: 1280, max: 1500 }), { nil: undefined }), scheme: fc.constantFrom("wireguard", "wg") })
  .map((n): GeneratedNode => {
    const q = [`publickey=${enc(n.publicKey)}`, `address=${enc(`${n.ip}/32`)}`];
    if (n.mtu) q.push(`mtu=${n.mtu}`);
    const node: MihomoProxy = {
      name: n.name, type: "wireguard", server: n.server, port: n.port, "private-key": n.privateKey,
      "public-key": n.publicKey, ip: n.ip, udp: true,
    }; // prettier-ignore
    if (n.mtu) node.mtu = n.mtu;
    return { link: `${n.scheme}://${enc(n.privateKey)}@${inLink(n.server)}:${n.port}?${q.join("&")}#${enc(n.name)}`, node };
  }); // prettier-ignore

export const SCHEMES = { ss, ssr, vmess, vless, trojan, hysteria2, tuic, wireguard };

/** One valid node of any scheme. */
export const anyNode: fc.Arbitrary<GeneratedNode> = fc.oneof(...Object.values(SCHEMES));

/** 1..12 valid nodes with distinct names (duplicates would be renamed). */
export const feedNodes = fc.uniqueArray(anyNode, {
  minLength: 1,
  maxLength: 12,
  selector: (g) => g.node.name,
});

/** Links the parser must skip, each counted once. */
export const invalidLink = fc.constantFrom(
  "vmess://bm90IGpzb24", // base64 of "not json"
  "vmess://%%%",
  "trojan://pw@host.example:0#bad-port",
  "trojan://pw@:443#no-host",
  "vless://@host.example:443#no-uuid",
  "ss://bm9jb2xvbg@host.example:443#no-colon",
  "ss://Zm9vOmJhcg@host.example:99999#port",
  "ss://YWVzLTEyOC1nY206cHc@host.example:443?plugin=unknown-plugin#plugin",
  "tuic://host.example:443#no-credentials",
  "wireguard://key@host.example:51820#no-public-key",
  "ssr://bm90IGFuIHNzciBsaW5r",
  "hysteria2://@host.example:443#no-password",
  "socks://host.example:1080#unknown-scheme",
  "just some words",
);

/** A YAML document whose proxies are written out in block style, one key per line. */
export function clashYaml(nodes: MihomoProxy[]): string {
  const lines = ["mixed-port: 7890", "proxies:"];
  for (const node of nodes) {
    Object.entries(node).forEach(([k, v], i) => {
      lines.push(`${i === 0 ? "  - " : "    "}${JSON.stringify(k)}: ${JSON.stringify(v)}`);
    });
  }
  lines.push("rules:", "  - MATCH,DIRECT");
  return lines.join("\n") + "\n";
}

/**
 * The same proxies as a provider with anchors writes them: shared fields come from `<<:`
 * merge keys (alone or in a list, before or after the node's own keys, with a `port` each
 * node overrides) and each `type` after its first appearance is an alias.
 */
export function clashYamlWithAnchors(nodes: MihomoProxy[], layout: number[]): string {
  const lines = ["x-udp: &udp {udp: true, port: 1}", "x-port: &port {port: 2}", "proxies:"];
  const types = new Map<string, string>();
  nodes.forEach((node, n) => {
    const style = layout[n % layout.length] ?? 0;
    const { udp, ...own } = node;
    const from = udp === true ? (style % 2 ? "[*udp, *port]" : "*udp") : "*port";
    const entries = Object.entries(own).map(([k, v]) => {
      if (k !== "type") return `${JSON.stringify(k)}: ${JSON.stringify(v)}`;
      const anchor = types.get(String(v));
      if (anchor) return `type: *${anchor}`;
      types.set(String(v), `t${types.size}`);
      return `type: &t${types.size - 1} ${JSON.stringify(v)}`;
    });
    if (udp !== undefined && udp !== true) entries.push(`udp: ${JSON.stringify(udp)}`);
    if (style >= 2) entries.push(`<<: ${from}`);
    else entries.unshift(`<<: ${from}`);
    entries.forEach((e, i) => lines.push(`${i === 0 ? "  - " : "    "}${e}`));
  });
  return lines.join("\n") + "\n";
}

/** Base64 of a text: standard with padding, URL-safe without, or wrapped at 76 columns. */
export function base64Feed(text: string, style: number): string {
  const std = Buffer.from(text).toString("base64");
  if (style === 0) return std;
  if (style === 1) return b64url(text);
  return (std.match(/.{1,76}/g) ?? []).join("\n");
}
