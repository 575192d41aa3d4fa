import { describe, expect, it } from "vitest";
import { translator } from "../../main/i18n.js";
import {
  trayMenuModel,
  trayTooltip,
  type TrayItem,
  type TrayState,
} from "../../main/tray/model.js";

const en = translator("en");
const zh = translator("zh-CN");

const ready: TrayState = {
  services: "ready",
  core: "online",
  node: "HK 01",
  entries: [
    {
      address: "192.168.1.20",
      name: "eth0",
      http: "http://192.168.1.20:8000",
      https: "https://192.168.1.20:8443",
      qr: true,
    },
  ],
  missing: [],
  chosen: false,
};

function find(items: TrayItem[], id: string): TrayItem | undefined {
  for (const item of items) {
    if (item.id === id) return item;
    const inner = find(item.submenu ?? [], id);
    if (inner) return inner;
  }
  return undefined;
}

function byId(items: TrayItem[], id: string): TrayItem {
  const item = find(items, id);
  if (!item) throw new Error(`no item ${id}`);
  return item;
}

function statusLabels(items: TrayItem[]): string[] {
  return items.filter((i) => i.id.startsWith("status.")).map((i) => i.label);
}

function allIds(items: TrayItem[]): string[] {
  return items.flatMap((i) => [i.id, ...allIds(i.submenu ?? [])]);
}

describe("trayMenuModel", () => {
  it("shows the status, the LAN addresses and every action when all runs", () => {
    const menu = trayMenuModel(ready, en);
    expect(statusLabels(menu)).toEqual(["Services running", "Proxy core running", "Node: HK 01"]);
    expect(menu.filter((i) => i.id.startsWith("status.")).every((i) => !i.enabled)).toBe(true);
    const lan = byId(menu, "lan:http://192.168.1.20:8000");
    expect(lan.type).toBe("submenu");
    expect(lan.submenu?.map((i) => [i.label, i.enabled, i.action])).toEqual([
      ["Copy address", true, { type: "copy", url: "http://192.168.1.20:8000" }],
      ["Show QR code", true, { type: "qr", url: "http://192.168.1.20:8000" }],
    ]);
    expect(byId(menu, "lan:https://192.168.1.20:8443").type).toBe("submenu");
    for (const [id, area] of [
      ["open.send", "send"],
      ["open.mine", "mine"],
      ["open.admin", "admin"],
      ["open.proxy", "proxy"],
    ] as const)
      expect(byId(menu, id)).toMatchObject({ enabled: true, action: { type: "open", area } });
    expect(byId(menu, "core.start").enabled).toBe(false);
    expect(byId(menu, "core.stop")).toMatchObject({
      enabled: true,
      action: { type: "core", command: "stop" },
    });
    expect(byId(menu, "core.restart").enabled).toBe(true);
    expect(menu.at(-1)).toMatchObject({ id: "quit", label: "Quit Gatehouse", enabled: true });
  });

  it("gives every item a unique id", () => {
    const ids = allIds(trayMenuModel(ready, en));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("offers to start a stopped core and nothing for a missing one", () => {
    const stopped = trayMenuModel({ ...ready, core: "offline" }, en);
    expect(statusLabels(stopped)).toEqual(["Services running", "Proxy core stopped"]);
    expect(byId(stopped, "core.start").enabled).toBe(true);
    expect(byId(stopped, "core.stop").enabled).toBe(false);
    const missing = trayMenuModel({ ...ready, core: "not_installed" }, en);
    expect(statusLabels(missing)).toEqual(["Services running", "Proxy core not installed"]);
    expect(
      ["core.start", "core.stop", "core.restart"].map((id) => byId(missing, id).enabled),
    ).toEqual([false, false, false]);
  });

  it("while the services restart, says so and disables what needs them", () => {
    const menu = trayMenuModel({ ...ready, services: "restarting" }, en);
    expect(statusLabels(menu)).toEqual([
      "The services stopped; restarting them…",
      "Proxy core: waiting for the services",
    ]);
    expect(allIds(menu).some((id) => id.startsWith("lan"))).toBe(false);
    expect(byId(menu, "open.send").enabled).toBe(false);
    expect(byId(menu, "open.proxy").enabled).toBe(false);
    expect(byId(menu, "core.restart").enabled).toBe(false);
    // The window, settings and quit always work.
    expect(byId(menu, "open.window").enabled).toBe(true);
    expect(byId(menu, "open.settings").enabled).toBe(true);
    expect(byId(menu, "quit").enabled).toBe(true);
  });

  it("says when a chosen address is gone and when there is no LAN address", () => {
    const gone = trayMenuModel(
      { ...ready, entries: [], missing: ["192.168.50.2"], chosen: true },
      en,
    );
    expect(byId(gone, "lan.missing:192.168.50.2").label).toBe("192.168.50.2 is not connected now");
    expect(byId(gone, "lan.none").label).toBe("No LAN address chosen (see Settings)");
    const none = trayMenuModel({ ...ready, entries: [] }, en);
    expect(byId(none, "lan.none").label).toBe(
      "No LAN address (connect this computer to a network)",
    );
  });

  it("disables the QR code where none can be drawn", () => {
    const menu = trayMenuModel({ ...ready, entries: [{ ...ready.entries[0], qr: false }] }, en);
    expect(byId(menu, "lan.qr:http://192.168.1.20:8000").enabled).toBe(false);
    expect(byId(menu, "lan.copy:http://192.168.1.20:8000").enabled).toBe(true);
  });

  it("speaks Chinese when asked, with no English words left", () => {
    const menu = trayMenuModel(ready, zh);
    expect(statusLabels(menu)).toEqual(["服务运行中", "代理内核运行中", "节点：HK 01"]);
    const labels = allIds(menu).map((id) => byId(menu, id).label);
    for (const label of labels.filter((l) => l && !l.startsWith("http")))
      expect(label.replace(/Gatehouse|HTTPS|HK 01/g, "")).not.toMatch(/[A-Za-z]{3,}/);
  });

  it("cleans a node name of control and direction characters and cuts a long one", () => {
    const menu = trayMenuModel({ ...ready, node: `evil\u202Egpj.exe ${"x".repeat(100)}` }, en);
    const label = statusLabels(menu)[2];
    expect(label).not.toMatch(/[\u202E]/);
    expect(label.length).toBeLessThanOrEqual("Node: ".length + 60);
    expect(label.endsWith("…")).toBe(true);
  });
});

describe("trayTooltip", () => {
  it("says the app, the services and the core with its node", () => {
    expect(trayTooltip(ready, en)).toBe("Gatehouse — Services running\nProxy core running (HK 01)");
    expect(trayTooltip({ ...ready, services: "failed" }, en)).toBe(
      "Gatehouse — The services could not start\nProxy core: waiting for the services",
    );
    expect(trayTooltip(ready, zh)).toBe("Gatehouse — 服务运行中\n代理内核运行中（HK 01）");
  });

  it("fits the 127 characters Windows shows", () => {
    const tip = trayTooltip({ ...ready, node: "n".repeat(300) }, en);
    expect(tip.length).toBeLessThanOrEqual(127);
  });
});

describe("the inbox in the tray", () => {
  it("offers to open a closed inbox for an hour, and to show or close an open one", () => {
    const closed = trayMenuModel({ ...ready, inbox: { open: false } }, en);
    expect(byId(closed, "inbox.state").label).toBe("Inbox closed");
    expect(byId(closed, "inbox.open").action).toEqual({ type: "inbox", command: "open" });
    expect(find(closed, "inbox.close")).toBeUndefined();
    const url = "http://192.168.1.20:8000/#/inbox/ABCDEF";
    const open = trayMenuModel({ ...ready, inbox: { open: true, until: "18:30", url } }, zh);
    expect(byId(open, "inbox.state").label).toBe("收件箱开放至 18:30");
    expect(byId(open, "inbox.qr").action).toEqual({ type: "qr", url });
    expect(byId(open, "inbox.close").action).toEqual({ type: "inbox", command: "close" });
    expect(find(open, "inbox.open")).toBeUndefined();
  });

  it("says nothing of the inbox while the services are not ready", () => {
    const items = trayMenuModel({ ...ready, services: "starting", inbox: { open: false } }, en);
    expect(find(items, "inbox.open")).toBeUndefined();
  });
});
