import { describe, expect, it } from "vitest";
import { ListenWatch, readListenLine } from "../../server/proxy/core/listen-problems.js";
import { CoreLogFeed } from "../../server/proxy/core/log-feed.js";
import { DEFAULT_SETTINGS, type Settings } from "../../server/proxy/types.js";

/** A line as mihomo prints it on stdout (logrus text format). */
const out = (level: string, msg: string) =>
  `time="2026-11-25T10:00:00.000000000Z" level=${level} msg=${JSON.stringify(msg)}`;

const settings = (over: Partial<Settings> = {}): Settings => ({ ...DEFAULT_SETTINGS, ...over });

describe("readListenLine", () => {
  it("reads mihomo's failed mixed listener with the port and address it names", () => {
    const said = readListenLine(
      out(
        "error",
        "Start Mixed(http+socks) server error: listen tcp 127.0.0.1:7890: bind: address already in use",
      ),
    );
    expect(said).toMatchObject({
      id: "mixed",
      listener: "mixed",
      protocol: "tcp",
      address: "127.0.0.1",
      port: 7890,
      ok: false,
      inUse: true,
    });
  });

  it("reads the success line of the same listener as its latest word", () => {
    expect(
      readListenLine(out("info", "Mixed(http+socks) proxy listening at: 127.0.0.1:7890")),
    ).toMatchObject({ id: "mixed", ok: true, inUse: false, port: 7890 });
  });

  it("reads a listeners: entry by its name, failed and listening", () => {
    expect(
      readListenLine(
        "Listener gatehouse-lan listen err: listen tcp 192.168.1.10:7890: bind: address already in use",
      ),
    ).toMatchObject({ id: "entry gatehouse-lan", address: "192.168.1.10", inUse: true });
    expect(
      readListenLine("Mixed(http+socks)[gatehouse-lan] proxy listening at: 192.168.1.10:7890"),
    ).toMatchObject({ id: "entry gatehouse-lan", ok: true });
  });

  it("reads the DNS server's UDP and TCP sides as separate listeners", () => {
    expect(
      readListenLine(
        out(
          "error",
          "Start DNS server(UDP) error: listen udp 127.0.0.1:1053: bind: address already in use",
        ),
      ),
    ).toMatchObject({ id: "dns udp", listener: "dns", protocol: "udp", port: 1053, inUse: true });
    expect(readListenLine("DNS server(TCP) listening at: [::]:1053")).toMatchObject({
      id: "dns tcp",
      protocol: "tcp",
      address: "*",
      ok: true,
    });
  });

  it("counts Windows' words for a held port, and not other bind failures", () => {
    expect(
      readListenLine(
        "Start Mixed(http+socks) server error: listen tcp 127.0.0.1:7890: bind: Only one usage of each socket address (protocol/network address/port) is normally permitted.",
      )?.inUse,
    ).toBe(true);
    expect(
      readListenLine(
        "Start Mixed(http+socks) server error: listen tcp 127.0.0.1:80: bind: permission denied",
      ),
    ).toMatchObject({ ok: false, inUse: false });
  });

  it("takes the wildcard address Go prints as ':port'", () => {
    expect(
      readListenLine(
        "Start Mixed(http+socks) server error: listen tcp :7890: bind: address already in use",
      ),
    ).toMatchObject({ address: "*", port: 7890 });
  });

  it("ignores lines about anything else", () => {
    expect(readListenLine(out("info", "RESTful API listening at: 127.0.0.1:9090"))).toBeNull();
    expect(
      readListenLine(out("warning", "[TCP] dial PROXY 127.0.0.1:5000 --> a.com:443 error: x")),
    ).toBeNull();
  });
});

describe("ListenWatch", () => {
  const fail = (port: number) =>
    `Start Mixed(http+socks) server error: listen tcp 127.0.0.1:${port}: bind: address already in use`;
  const ok = (port: number) => `Mixed(http+socks) proxy listening at: 127.0.0.1:${port}`;

  it("names a held mixed port with the code, port, address and listener", () => {
    const w = new ListenWatch();
    w.line(out("error", fail(7890)));
    expect(w.problems(settings())).toEqual([
      {
        code: "core.port_in_use",
        port: 7890,
        address: "127.0.0.1",
        listener: "mixed",
        protocol: "tcp",
      },
    ]);
  });

  it("lets a later line that binds the port clear it", () => {
    const w = new ListenWatch();
    w.line(fail(7890));
    w.line(ok(7890));
    expect(w.problems(settings())).toEqual([]);
    w.line(fail(7890));
    expect(w.problems(settings())).toHaveLength(1);
  });

  it("forgets an earlier run's lines on reset", () => {
    const w = new ListenWatch();
    w.line(fail(7890));
    w.reset();
    expect(w.problems(settings())).toEqual([]);
  });

  it("drops a problem with a port or an address the settings no longer use", () => {
    const w = new ListenWatch();
    w.line(fail(7890));
    expect(w.problems(settings({ mixedPort: 7891 }))).toEqual([]);
    w.reset();
    w.line(
      "Listener gatehouse-lan listen err: listen tcp 192.168.1.10:7890: bind: address already in use",
    );
    expect(w.problems(settings({ lanIP: "192.168.1.10", lanCIDR: "192.168.1.0/24" }))).toEqual([
      expect.objectContaining({ address: "192.168.1.10", port: 7890, listener: "mixed" }),
    ]);
    expect(w.problems(settings({ lanIP: "", lanCIDR: "" }))).toEqual([]);
  });

  it("names a held DNS port for the DNS port of the settings", () => {
    const w = new ListenWatch();
    w.line("Start DNS server(TCP) error: listen tcp 127.0.0.1:1053: bind: address already in use");
    w.line("DNS server(UDP) listening at: 127.0.0.1:1053");
    expect(w.problems(settings())).toEqual([
      expect.objectContaining({ port: 1053, listener: "dns", protocol: "tcp" }),
    ]);
  });
});

describe("the core's log stream (a core run by systemd, whose stdout is not ours)", () => {
  it("hands each kept line to the watch, which names the held port", async () => {
    const w = new ListenWatch();
    let ended = () => undefined as void;
    const feed = new CoreLogFeed(
      async (onItem) => {
        onItem({
          type: "error",
          payload:
            "Start Mixed(http+socks) server error: listen tcp 127.0.0.1:7890: bind: address already in use",
        });
        await new Promise<void>((r) => (ended = r));
      },
      { observe: (line) => w.line(line.payload) },
    );
    feed.setFollowing(true);
    await new Promise((r) => setImmediate(r));
    expect(w.problems(settings())).toEqual([expect.objectContaining({ port: 7890 })]);
    feed.close();
    ended();
  });
});
