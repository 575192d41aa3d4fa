import { describe, expect, it } from "vitest";
import { parseSubscription } from "../../server/proxy/subscriptions/parse.js";
import type { MihomoProxy } from "../../server/proxy/types.js";

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

describe("vless:// links", () => {
  it("maps reality with flow and fingerprint", () => {
    const link =
      "vless://2c7c1f7d-9e2f-4f1c-8e46-2a3b4c5d6e7f@198.51.100.16:443?encryption=none&security=reality" +
      "&sni=www.microsoft.com&fp=chrome&pbk=5b0v4XDlC4uNjSeBo-MAg2Jxq&sid=6ba85179&flow=xtls-rprx-vision&type=tcp#SG%20Reality";
    expect(one(link)).toEqual({
      name: "SG Reality",
      type: "vless",
      server: "198.51.100.16",
      port: 443,
      uuid: "2c7c1f7d-9e2f-4f1c-8e46-2a3b4c5d6e7f",
      udp: true,
      tls: true,
      servername: "www.microsoft.com",
      "client-fingerprint": "chrome",
      "reality-opts": { "public-key": "5b0v4XDlC4uNjSeBo-MAg2Jxq", "short-id": "6ba85179" },
      flow: "xtls-rprx-vision",
    });
  });

  it("maps tls + ws and grpc transports", () => {
    expect(
      one(
        "vless://u-1@v.example.net:443?security=tls&sni=v.example.net&type=ws&host=cdn.example.net&path=%2Fvl&allowInsecure=1#ws",
      ),
    ).toEqual({
      name: "ws",
      type: "vless",
      server: "v.example.net",
      port: 443,
      uuid: "u-1",
      udp: true,
      tls: true,
      servername: "v.example.net",
      "skip-cert-verify": true,
      network: "ws",
      "ws-opts": { path: "/vl", headers: { Host: "cdn.example.net" } },
    });
    expect(
      one("vless://u-2@v.example.net:443?security=tls&type=grpc&serviceName=gs#g"),
    ).toMatchObject({
      network: "grpc",
      "grpc-opts": { "grpc-service-name": "gs" },
    });
  });

  it("skips reality without a public key", () => {
    rejected("vless://u-3@v.example.net:443?security=reality&sni=x#r");
  });
});

describe("trojan:// links", () => {
  it("maps password, sni, insecure and ws", () => {
    const link =
      "trojan://tr0jan%40pass@198.51.100.17:443?sni=trojan.example.net&allowInsecure=1&type=ws&path=%2Ftj&host=trojan.example.net#Trojan";
    expect(one(link)).toEqual({
      name: "Trojan",
      type: "trojan",
      server: "198.51.100.17",
      port: 443,
      password: "tr0jan@pass",
      udp: true,
      sni: "trojan.example.net",
      "skip-cert-verify": true,
      network: "ws",
      "ws-opts": { path: "/tj", headers: { Host: "trojan.example.net" } },
    });
  });

  it("skips a port out of range", () => {
    rejected("trojan://p@198.51.100.17:70000#x");
  });
});

describe("hysteria2:// and hy2:// links", () => {
  it("maps auth, sni, insecure and salamander obfs", () => {
    expect(
      one(
        "hysteria2://hy2-auth@198.51.100.18:8443/?sni=hy2.example.net&insecure=1&obfs=salamander&obfs-password=salty&pinSHA256=AB%3ACD#HY2",
      ),
    ).toEqual({
      name: "HY2",
      type: "hysteria2",
      server: "198.51.100.18",
      port: 8443,
      password: "hy2-auth",
      sni: "hy2.example.net",
      "skip-cert-verify": true,
      obfs: "salamander",
      "obfs-password": "salty",
      fingerprint: "AB:CD",
    });
  });

  it("reads the short scheme and a port-hopping list", () => {
    expect(one("hy2://a@h.example.net:443,20000-30000?sni=h.example.net#hop")).toEqual({
      name: "hop",
      type: "hysteria2",
      server: "h.example.net",
      port: 443,
      password: "a",
      ports: "443,20000-30000",
      sni: "h.example.net",
    });
  });
});

describe("tuic:// links", () => {
  it("maps uuid, password and the QUIC options", () => {
    const link =
      "tuic://7bc26e22-e37e-4e61-9d9b-7f8091a2b3c4:tuic-pass@198.51.100.20:443?congestion_control=bbr&udp_relay_mode=native&alpn=h3,h3-29&sni=tuic.example.net&allow_insecure=1#TUIC";
    expect(one(link)).toEqual({
      name: "TUIC",
      type: "tuic",
      server: "198.51.100.20",
      port: 443,
      uuid: "7bc26e22-e37e-4e61-9d9b-7f8091a2b3c4",
      password: "tuic-pass",
      sni: "tuic.example.net",
      alpn: ["h3", "h3-29"],
      "congestion-controller": "bbr",
      "udp-relay-mode": "native",
      "skip-cert-verify": true,
      udp: true,
    });
  });

  it("skips a link without credentials", () => {
    rejected("tuic://198.51.100.20:443#none");
  });
});

describe("wireguard:// links", () => {
  it("maps keys (with + and = intact), addresses, mtu and reserved bytes", () => {
    const link =
      "wireguard://eCtXsJZ27%2B4PbhDkHnB923tkUn2Gj59wZw5wFA75MnU%3D@198.51.100.21:51820?publickey=Cr8hWlKvtDt7nrvf+f0brNQQzabAqrjfBvas9pmowjo=" +
      "&address=172.16.0.2%2F32%2Cfd01%3A%3A2%2F128&mtu=1280&reserved=1,2,3&presharedkey=cHNr#WG";
    expect(one(link)).toEqual({
      name: "WG",
      type: "wireguard",
      server: "198.51.100.21",
      port: 51820,
      "private-key": "eCtXsJZ27+4PbhDkHnB923tkUn2Gj59wZw5wFA75MnU=",
      "public-key": "Cr8hWlKvtDt7nrvf+f0brNQQzabAqrjfBvas9pmowjo=",
      ip: "172.16.0.2",
      ipv6: "fd01::2",
      "pre-shared-key": "cHNr",
      mtu: 1280,
      reserved: [1, 2, 3],
      udp: true,
    });
  });

  it("skips a link without the peer's public key", () => {
    rejected("wg://cHJpdg%3D%3D@198.51.100.21:51820?address=10.0.0.2#no peer");
  });
});
