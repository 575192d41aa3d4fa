import { isIPv4 } from "node:net";
import { DAY_MS, SECOND_MS } from "../../contract/time-units.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import { canonicalIp, isGatewayItself, isPrivateMac } from "../system/addresses.js";
import { emptyLeases, type LeaseTable, type LeasesFile } from "../system/leases.js";

/** How long the neighbour table and the leases are used before they are read again. */
export const TABLES_MS = 10 * SECOND_MS;
/** An IPv6 address not used for this long is no longer the device's (privacy addresses rotate). */
export const IPV6_KEEP_MS = DAY_MS;
/** The longest one slice of binding addresses holds the event loop (ms), about. */
const SLICE_MS = 2;

export interface DiscoveryOptions {
  store: SqlProxyStore;
  /** The neighbour table: IPv4 address → MAC address (empty where the system has none). */
  neighbours(): Promise<Map<string, string>>;
  leases: LeasesFile;
  /** This machine's own addresses: connections from them are the gateway's, not a device's. */
  ownAddresses(): ReadonlySet<string>;
  /** The makers of MAC addresses (read off the event loop). */
  vendors(macs: readonly string[]): Promise<Array<string | null>>;
  /** Told when a lookup of makers failed (the devices keep no maker until the next MAC). */
  onVendorError(err: unknown): void;
}

/** What resolving one reading's addresses changed. */
export interface Resolved {
  /** The device of each source address (as the core wrote it) that is a device. */
  keys: Map<string, { key: number; ip: string }>;
  /** Devices that turned out to be another one (known by IP first, by MAC now): from → into. */
  merged: Array<[number, number]>;
  /** Whether a device was added or an address moved, so the compiled policies may differ. */
  changed: boolean;
  /** The longest slice of the binding (ms): the event loop's longest step in a resolve. */
  syncMs: number;
}

/**
 * Finds the device behind each source address of the core's connections. A device is keyed by
 * its MAC address when the neighbour table or a DHCP lease knows it, else by its IP address; a
 * device known by MAC keeps its name, policy and history when its address changes, and one
 * first known by IP becomes the MAC's device once the MAC is learnt. Loopback, this machine's
 * addresses and the core's own TUN range are the gateway itself and never a device.
 */
export class DeviceDiscovery {
  /** Source address (as the core wrote it) → its device, until the tables are read again. */
  private cache = new Map<string, { key: number; ip: string } | null>();
  private neighbourTable = new Map<string, string>();
  private leaseTable: LeaseTable = emptyLeases();
  private tablesAt = -Infinity;
  private readonly vendorsAsked = new Set<string>();

  constructor(private readonly opts: DiscoveryOptions) {}

  /** Resolves the source addresses of one reading taken at `at` (ms). */
  async resolve(sources: readonly string[], at: number): Promise<Resolved> {
    const out: Resolved = { keys: new Map(), merged: [], changed: false, syncMs: 0 };
    // No connection, nothing to bind: the tables are not read for nobody.
    if (sources.length === 0) return out;
    const unknown = sources.some((s) => !this.cache.has(s));
    if (unknown || at - this.tablesAt >= TABLES_MS) {
      // A failed read (the reader's worker restarting) keeps the table read before.
      this.neighbourTable = await this.opts.neighbours().catch(() => this.neighbourTable);
      this.leaseTable = await this.opts.leases.read(at);
      this.tablesAt = at;
      // What the tables say may have changed: every address is bound again.
      this.cache.clear();
    }
    const own = this.opts.ownAddresses();
    const newMacs: string[] = [];
    const inUse = new Set(sources.map((s) => canonicalIp(s) ?? ""));
    let i = 0;
    while (i < sources.length && this.opts.store.open) {
      // Binding 200 addresses anew takes several milliseconds (a few statements each): it
      // goes in slices of SLICE_MS, each its own transaction, with other work let in between.
      const started = performance.now();
      this.opts.store.transaction(() => {
        do {
          const raw = sources[i++];
          let device = this.cache.get(raw);
          if (device === undefined) {
            const ip = canonicalIp(raw);
            device =
              ip && !isGatewayItself(ip) && !own.has(ip)
                ? { key: this.bind(ip, at, { out, newMacs, inUse }), ip }
                : null;
            this.cache.set(raw, device);
          }
          if (device !== null) out.keys.set(raw, device);
        } while (i < sources.length && performance.now() - started < SLICE_MS);
      });
      out.syncMs = Math.max(out.syncMs, performance.now() - started);
      if (i < sources.length) await new Promise((r) => setImmediate(r));
    }
    if (newMacs.length > 0) void this.lookUpVendors(newMacs);
    return out;
  }

  /** Forgets what is known of a device that was removed (or merged into another). */
  forget(key: number): void {
    for (const [raw, d] of this.cache) if (d?.key === key) this.cache.delete(raw);
  }

  private forgetAddress(ip: string): void {
    for (const [raw, d] of this.cache) if (d?.ip === ip) this.cache.delete(raw);
  }

  /** The addresses of each device as they are now: drops IPv6 addresses unused for a day. */
  expire(at: number): boolean {
    let dropped = false;
    for (const a of this.opts.store.devices.addresses()) {
      if (!isIPv4(a.ip) && at - a.last_seen > IPV6_KEEP_MS) {
        this.opts.store.devices.dropAddress(a.ip);
        this.forgetAddress(a.ip);
        dropped = true;
      }
    }
    return dropped;
  }

  /** The device of one address, created or updated as the tables say; answers its key. */
  private bind(
    ip: string,
    at: number,
    { out, newMacs, inUse }: { out: Resolved; newMacs: string[]; inUse: ReadonlySet<string> },
  ): number {
    const { devices, traffic } = this.opts.store;
    const lease = this.leaseTable.byIp.get(ip);
    const mac = this.neighbourTable.get(ip) ?? lease?.mac ?? null;
    let key: number;
    if (mac) {
      const dev = devices.get(mac);
      if (dev) {
        key = dev.key;
        if (dev.first_seen === null) devices.seen(key, at);
      } else {
        key = devices.create(mac, mac, at);
        out.changed = true;
      }
      if (!dev?.vendor && !isPrivateMac(mac)) newMacs.push(mac);
      // The same device known by its address before its MAC was learnt: one device now.
      const byIp = devices.get(ip);
      if (byIp && byIp.mac === null && byIp.key !== key) {
        const into = devices.byKey(key);
        if (into && !into.name && byIp.name) devices.setName(key, byIp.name);
        if (into?.policy === "default" && byIp.policy !== "default")
          devices.setPolicy(key, byIp.policy);
        traffic.merge(byIp.key, key);
        devices.absorb(byIp.key, key);
        if (byIp.first_seen !== null) devices.seen(key, byIp.first_seen);
        this.forget(byIp.key);
        out.merged.push([byIp.key, key]);
        out.changed = true;
      }
    } else {
      const holder = devices.holderOf(ip);
      const dev = holder ? null : devices.get(ip);
      if (holder) key = holder.device_key;
      else if (dev) {
        key = dev.key;
        if (dev.first_seen === null) devices.seen(key, at);
      } else {
        key = devices.create(ip, null, at);
        out.changed = true;
      }
    }
    const holder = devices.holderOf(ip);
    if (holder?.device_key !== key) {
      devices.assign(ip, key, at);
      out.changed = true;
    }
    // A new IPv4 address replaces the device's earlier one (a DHCP lease changed), once no
    // connection from the earlier one is left.
    if (isIPv4(ip)) {
      for (const a of devices.addressesOf(key)) {
        if (a.ip !== ip && isIPv4(a.ip) && !inUse.has(a.ip)) {
          devices.dropAddress(a.ip);
          this.forgetAddress(a.ip);
          out.changed = true;
        }
      }
    }
    const name = (mac ? this.leaseTable.byMac.get(mac)?.name : null) ?? lease?.name ?? null;
    const row = devices.byKey(key);
    if (row && name && row.discovered_name !== name) devices.setDiscoveredName(key, name);
    return key;
  }

  private async lookUpVendors(macs: string[]): Promise<void> {
    const ask = [...new Set(macs)].filter((m) => !this.vendorsAsked.has(m));
    if (ask.length === 0) return;
    for (const m of ask) this.vendorsAsked.add(m);
    try {
      const names = await this.opts.vendors(ask);
      const { store } = this.opts;
      if (!store.open) return;
      store.transaction(() => {
        ask.forEach((mac, i) => {
          const dev = store.devices.get(mac);
          if (dev && names[i]) store.devices.setVendor(dev.key, names[i]);
        });
      });
    } catch (err) {
      for (const m of ask) this.vendorsAsked.delete(m);
      this.opts.onVendorError(err);
    }
  }
}
