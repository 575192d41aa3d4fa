import { describe, expect, it } from "vitest";
import { parseSubscription } from "../../server/proxy/subscriptions/parse.js";
import type { MihomoProxy } from "../../server/proxy/types.js";

const b64 = (s: string): string => Buffer.from(s).toString("base64");
const b64url = (s: string): string => Buffer.from(s).toString("base64url");

/** The single node a one-line URI list yields. */
function one(link: string): MihomoProxy {
  const out = parseSubscription(link);
  expect(out.format).toBe("uri-list");
  expect(out.skipped).toBe(0);
  expect(out.nodes).toHaveLength(1);
  return out.nodes[0] as MihomoProxy;
}

function rejected(link: string): void {
  expect(() => parseSubscription(link)).toThrow(
    "The subscription contains no usable nodes (1 skipped)",
  );
}

describe("ss:// links", () => {
  it("reads SIP002 with a base64 user part and an obfs plugin", () => {
    const link =
      `ss://${b64url("aes-256-gcm:pass:word")}@198.51.100.1:8388/?plugin=` +
      encodeURIComponent("obfs-local;obfs=tls;obfs-host=www.bing.com") +
      "#%E9%A6%99%E6%B8%AF%2001";
    expect(one(link)).toEqual({
      name: "香港 01",
      type: "ss",
      server: "198.51.100.1",
      port: 8388,
      cipher: "aes-256-gcm",
      password: "pass:word",
      udp: true,
      plugin: "obfs",
      "plugin-opts": { mode: "tls", host: "www.bing.com" },
    });
  });

  it("reads SIP002 with a percent-encoded 2022 key and an IPv6 host", () => {
    expect(
      one("ss://2022-blake3-aes-128-gcm:AAAA%2BAAAAAAAAAAAAAAAAA%3D%3D@[2001:db8::1]:443#v6"),
    ).toEqual({
      name: "v6",
      type: "ss",
      server: "2001:db8::1",
      port: 443,
      cipher: "2022-blake3-aes-128-gcm",
      password: "AAAA+AAAAAAAAAAAAAAAAA==",
      udp: true,
    });
  });

  it("reads the legacy form with everything in base64", () => {
    expect(one(`ss://${b64("chacha20-ietf-poly1305:p@ss@198.51.100.2:8389")}#Legacy`)).toEqual({
      name: "Legacy",
      type: "ss",
      server: "198.51.100.2",
      port: 8389,
      cipher: "chacha20-ietf-poly1305",
      password: "p@ss",
      udp: true,
    });
  });

  it("maps v2ray-plugin options and names an unnamed node by its address", () => {
    const plugin = encodeURIComponent("v2ray-plugin;tls;host=cdn.example.net;path=/ws");
    expect(one(`ss://${b64url("aes-128-gcm:x")}@h.example.net:443?plugin=${plugin}`)).toMatchObject(
      {
        name: "h.example.net:443",
        plugin: "v2ray-plugin",
        "plugin-opts": { mode: "websocket", tls: true, host: "cdn.example.net", path: "/ws" },
      },
    );
  });

  it("skips unsupported ciphers and plugins, and missing ports", () => {
    rejected(`ss://${b64url("rot13:x")}@198.51.100.3:1#bad cipher`);
    rejected(`ss://${b64url("aes-128-gcm:x")}@198.51.100.3:1?plugin=kcptun-unknown#p`);
    rejected(`ss://${b64url("aes-128-gcm:x")}@198.51.100.3#no port`);
  });
});

describe("ssr:// links", () => {
  it("reads every field, base64 parameters included", () => {
    const body =
      `198.51.100.13:8443:auth_aes128_md5:aes-256-cfb:tls1.2_ticket_auth:${b64url("ssr-pass")}` +
      `/?obfsparam=${b64url("cdn.example.com")}&protoparam=${b64url("32:abc")}&remarks=${b64url("日本 SSR")}`;
    expect(one(`ssr://${b64url(body)}`)).toEqual({
      name: "日本 SSR",
      type: "ssr",
      server: "198.51.100.13",
      port: 8443,
      cipher: "aes-256-cfb",
      password: "ssr-pass",
      obfs: "tls1.2_ticket_auth",
      protocol: "auth_aes128_md5",
      "obfs-param": "cdn.example.com",
      "protocol-param": "32:abc",
      udp: true,
    });
  });

  it("skips a link with too few fields", () => {
    rejected(`ssr://${b64url("198.51.100.13:8443:origin:aes-256-cfb")}`);
  });
});

describe("vmess:// links", () => {
  const vmess = (o: Record<string, unknown>): string => `vmess://${b64(JSON.stringify(o))}`;
  const base = {
    v: "2",
    add: "vm.example.net",
    port: "443",
    id: "1b6b0f6c-8d1e-4e0b-9d35-1f2a3b4c5d6e",
  };

  it("maps ws + tls with early data in the path", () => {
    const link = vmess({
      ...base,
      ps: "VM",
      aid: "0",
      scy: "auto",
      net: "ws",
      type: "none",
      host: "cdn.example.net",
      path: "/ray?ed=2048",
      tls: "tls",
      sni: "vm.example.net",
    });
    expect(one(link)).toEqual({
      name: "VM",
      type: "vmess",
      server: "vm.example.net",
      port: 443,
      uuid: "1b6b0f6c-8d1e-4e0b-9d35-1f2a3b4c5d6e",
      alterId: 0,
      cipher: "auto",
      udp: true,
      tls: true,
      servername: "vm.example.net",
      network: "ws",
      "ws-opts": {
        path: "/ray",
        headers: { Host: "cdn.example.net" },
        "max-early-data": 2048,
        "early-data-header-name": "Sec-WebSocket-Protocol",
      },
    });
  });

  it("maps grpc, h2 and tcp with an http header", () => {
    expect(
      one(vmess({ ...base, ps: "g", aid: 0, net: "grpc", path: "svc", tls: "tls" })),
    ).toMatchObject({
      network: "grpc",
      "grpc-opts": { "grpc-service-name": "svc" },
      tls: true,
    });
    expect(
      one(
        vmess({
          ...base,
          ps: "h",
          aid: "2",
          scy: "aes-128-gcm",
          net: "h2",
          host: "a.example,b.example",
          path: "/h2",
          tls: "tls",
        }),
      ),
    ).toMatchObject({
      alterId: 2,
      cipher: "aes-128-gcm",
      network: "h2",
      "h2-opts": { host: ["a.example", "b.example"], path: "/h2" },
      servername: "a.example",
    });
    const tcp = one(
      vmess({ ...base, ps: "t", net: "tcp", type: "http", host: "h.example", path: "/x" }),
    );
    expect(tcp).toMatchObject({
      network: "http",
      "http-opts": { method: "GET", path: ["/x"], headers: { Host: ["h.example"] } },
    });
    expect(tcp.tls).toBeUndefined();
  });

  it("skips transports mihomo does not have and unreadable JSON", () => {
    rejected(vmess({ ...base, ps: "k", net: "kcp" }));
    rejected(`vmess://${b64("{not json")}`);
    rejected(vmess({ ...base, ps: "c", scy: "rc4" }));
  });
});
