import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findLanName, hostLabel, lanAddresses, lanNameEntries } from "../../server/lan-name.js";

/**
 * Reachable by name. The DNS-SD announcement and the `<hostname>.local` entry are proven inside
 * a network namespace of this test's own (`unshare`: no packet reaches the machine's network):
 * a host named `ghtest` with one LAN interface (a veth pair, 192.168.77.1/24, multicast routed
 * there) and a hosts file in which `ghtest.local` resolves to that address, standing in for
 * Avahi/Bonjour answering for the machine's name. test/fixtures/lan-name-run.ts starts the real
 * services there with mDNS on and with `--no-mdns` and browses `_http._tcp` like a phone.
 */

const LAN = "192.168.77.1";
const dir = mkdtempSync(join(tmpdir(), "gh-lan-name-ns-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SETUP = [
  "set -e",
  "hostname ghtest",
  "ip link set lo up",
  "ip link add gh0 type veth peer name gh1",
  `ip addr add ${LAN}/24 dev gh0`,
  "ip link set gh1 up",
  "ip link set gh0 up",
  "ip route add 224.0.0.0/4 dev gh0",
  `mount --bind "$GH_HOSTS" /etc/hosts`,
].join("\n");

/** Why no namespace can be made here (no user namespaces, no veth), or null. */
function namespaceProblem(): string | null {
  const probe = spawnSync("unshare", ["-rnmu", "sh", "-c", SETUP], {
    env: { ...process.env, GH_HOSTS: "/etc/hosts" },
    encoding: "utf8",
    timeout: 10_000,
  });
  if (probe.error) return probe.error.message;
  return probe.status === 0 ? null : probe.stderr.trim() || `exit ${probe.status}`;
}

const problem = namespaceProblem();
if (problem && !process.env.CI)
  console.warn(`SKIPPED the mDNS namespace test: no network namespace here (${problem})`);

describe.skipIf(problem && !process.env.CI)("mDNS in a network namespace of its own", () => {
  it("announces Gatehouse on <hostname> and adds the LAN name; --no-mdns does neither", () => {
    const hosts = join(dir, "hosts");
    writeFileSync(hosts, `127.0.0.1 localhost\n${LAN} ghtest.local\n`);
    const run = spawnSync(
      "unshare",
      [
        "-rnmu",
        "sh",
        "-c",
        `${SETUP}\nexec "${process.execPath}" --import tsx test/fixtures/lan-name-run.ts`,
      ],
      {
        env: { ...process.env, GH_HOSTS: hosts, GH_LAN_ADDRESS: LAN },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "));
    expect(line, `${run.stdout}\n${run.stderr}`).toBeDefined();
    const { hostname, on, off } = JSON.parse(line?.slice("RESULT ".length) ?? "{}");
    expect(hostname).toBe("ghtest");

    // mDNS on: the LAN name is an entry, share links offer it labelled, and it answers.
    expect(on.lanName).toBe("ghtest.local");
    expect(on.entries).toContain(`http://ghtest.local:${on.port}`);
    expect(on.entries).toContain(`http://${LAN}:${on.port}`);
    expect(on.health).toBe(200);
    expect(on.urls).toContainEqual({
      label: "LAN name ghtest.local",
      url: expect.stringMatching(new RegExp(`^http://ghtest\\.local:${on.port}/#/pickup/`)),
    });
    // A browsing device finds "Gatehouse on ghtest" at the parcel port, on ghtest.local.
    expect(on.services).toContainEqual({
      instance: "Gatehouse on ghtest._http._tcp.local",
      port: on.port,
      target: "ghtest.local",
      txt: expect.arrayContaining(["path=/", "service=parcel"]),
    });

    // The proxy console is announced too, and answers on the name it is announced on.
    expect(on.services).toContainEqual({
      instance: "Gatehouse proxy on ghtest._http._tcp.local",
      port: on.proxyPort,
      target: "ghtest.local",
      txt: expect.arrayContaining(["path=/", "service=proxy"]),
    });
    expect(on.proxyByName).toBe(200);

    // --no-mdns: no LAN name among the entries, nothing answers a browse, and the console
    // refuses the name (421) as any name it was not given.
    expect(off.proxyByName).toBe(421);
    expect(off.lanName).toBeNull();
    expect(off.entries.some((e: string) => e.includes(".local"))).toBe(false);
    expect(off.services).toEqual([]);
  });
});

describe("the LAN name check", () => {
  const interfaces = () => ({
    lo: [
      {
        address: "127.0.0.1",
        netmask: "255.0.0.0",
        family: "IPv4" as const,
        mac: "00:00:00:00:00:00",
        internal: true,
        cidr: "127.0.0.1/8",
      },
    ],
    eth0: [
      {
        address: "192.168.1.20",
        netmask: "255.255.255.0",
        family: "IPv4" as const,
        mac: "52:54:00:12:34:56",
        internal: false,
        cidr: "192.168.1.20/24",
      },
    ],
  });

  it("takes the name only when it resolves to one of this machine's LAN addresses", async () => {
    expect(lanAddresses(interfaces())).toEqual(["192.168.1.20"]);
    const ask = (answer: string[]) => async (name: string) => {
      expect(name).toBe("study-pc.local");
      return answer;
    };
    const base = { hostname: "Study-PC.example.com", interfaces };
    expect(await findLanName({ ...base, resolve: ask(["192.168.1.20"]) })).toBe("study-pc.local");
    // Another machine answering for the name, or only loopback: not this machine's LAN name.
    expect(await findLanName({ ...base, resolve: ask(["192.168.1.99"]) })).toBeNull();
    expect(await findLanName({ ...base, resolve: ask(["127.0.0.1"]) })).toBeNull();
    expect(
      await findLanName({ ...base, resolve: () => Promise.reject(new Error("ENOTFOUND")) }),
    ).toBeNull();
    // A resolver that never answers costs the timeout, not the start.
    expect(
      await findLanName({ ...base, resolve: () => new Promise(() => {}), timeoutMs: 50 }),
    ).toBeNull();
  });

  it("uses only a name that is one DNS label", () => {
    expect(hostLabel("vm")).toBe("vm");
    expect(hostLabel("Desk.local")).toBe("desk");
    expect(hostLabel("my_pc")).toBeNull();
    expect(hostLabel("-bad")).toBeNull();
    expect(lanNameEntries("vm.local", 8000, 8443)).toEqual([
      "http://vm.local:8000",
      "https://vm.local:8443",
    ]);
  });
});
