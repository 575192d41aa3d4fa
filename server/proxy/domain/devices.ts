import type { Clock } from "../../clock.js";
import {
  ONLINE_MS,
  type Device,
  type DevicePatch,
  type TrafficRange,
  type TrafficView,
} from "../../contract/proxy-devices.js";
import { DomainError } from "../../domain-errors.js";
import type { ServiceLog } from "../../log.js";
import type { ProxyProblemCode } from "../../problem-codes.js";
import type { DeviceRow } from "../store/devices.js";
import type { SqlProxyStore } from "../store/proxy-store.js";
import { isoNow } from "../types.js";
import type { Changes } from "./changes.js";
import type { TrafficAccounting } from "./devices-accounting.js";
import type { DeviceDiscovery } from "./devices-discovery.js";
import { localDayOf } from "./devices-time.js";
import { trafficView } from "./devices-traffic.js";

export interface DevicesOptions {
  store: SqlProxyStore;
  clock: Clock;
  changes: Changes;
  discovery: DeviceDiscovery;
  accounting: TrafficAccounting;
  log: ServiceLog<ProxyProblemCode>;
}

function unknownDevice(): DomainError {
  return new DomainError("invalid", "device.unknown", "Unknown device");
}

/**
 * The gateway's devices as the console sees them: the list with today's traffic, renaming,
 * a policy per device (compiled into the core's rules through the change queue), forgetting
 * one with its history, and the traffic charts.
 */
export class Devices {
  /** The compiled policies as last applied (address and policy of each), to spot a change. */
  private appliedPolicies: string;

  constructor(private readonly opts: DevicesOptions) {
    this.appliedPolicies = this.policyKey();
  }

  list(): Device[] {
    const { store, clock, accounting } = this.opts;
    const now = clock.now();
    const today = localDayOf(now);
    const todays = new Map(
      store.traffic.perDevice("day", today, today).map((s) => [s.key, s] as const),
    );
    const addresses = new Map<number, Array<{ ip: string; last_seen: number }>>();
    for (const a of store.devices.addresses()) {
      const list = addresses.get(a.device_key) ?? [];
      list.push(a);
      addresses.set(a.device_key, list);
    }
    const unwritten = accounting.unwritten();
    const out = store.devices.list().map((row): Device & { seenMs: number } => {
      const own = (addresses.get(row.key) ?? []).sort((a, b) => b.last_seen - a.last_seen);
      const pending = unwritten.get(row.key);
      const seenMs = Math.max(row.last_seen ?? 0, pending?.lastSeen ?? 0);
      const t = todays.get(row.key);
      let upload = t?.upload ?? 0;
      let download = t?.download ?? 0;
      for (const r of pending?.hours.values() ?? []) {
        if (r.day !== today) continue;
        upload += r.upload;
        download += r.download;
      }
      const ip = own[0]?.ip ?? (row.mac ? null : row.id);
      return {
        id: row.id,
        name: displayName(row, ip),
        discoveredName: row.discovered_name,
        ip,
        addresses: own.length > 0 || row.mac ? own.map((a) => a.ip) : [row.id],
        mac: row.mac,
        vendor: row.vendor,
        firstSeen: row.first_seen === null ? null : isoNow(row.first_seen),
        lastSeen: seenMs > 0 ? isoNow(seenMs) : null,
        online: seenMs > 0 && now - seenMs <= ONLINE_MS,
        policy: row.policy,
        today: { upload, download },
        seenMs,
      };
    });
    out.sort((a, b) => b.seenMs - a.seenMs || a.id.localeCompare(b.id));
    return out.map(({ seenMs: _, ...device }) => device);
  }

  /** Renames a device, sets its policy, or both; 400 for an unknown id. */
  async update(id: string, patch: DevicePatch): Promise<void> {
    const { store, changes } = this.opts;
    const row = store.devices.get(id);
    if (!row) throw unknownDevice();
    const mutate = () => {
      // Decided in the queue's turn: the device may have been forgotten meanwhile.
      const now = store.devices.get(id);
      if (!now) throw unknownDevice();
      if (patch.name !== undefined) store.devices.setName(now.key, patch.name);
      if (patch.policy !== undefined) store.devices.setPolicy(now.key, patch.policy);
    };
    if (patch.policy !== undefined && patch.policy !== row.policy) {
      await changes.change(mutate);
      this.appliedPolicies = this.policyKey();
    } else {
      await changes.serial(mutate);
    }
  }

  /** Forgets a device and its history; 400 for an unknown id. */
  async remove(id: string): Promise<void> {
    const { store, changes, discovery, accounting } = this.opts;
    const row = store.devices.get(id);
    if (!row) throw unknownDevice();
    let key = -1;
    let hadPolicy = false;
    const mutate = () => {
      const now = store.devices.get(id);
      if (!now) throw unknownDevice();
      key = now.key;
      hadPolicy = now.policy !== "default";
      store.devices.remove(now.key);
    };
    // A device with a policy of its own is in the compiled rules (an IP-keyed one even before
    // it is seen), so forgetting it is a change of the core's configuration.
    const compiled = row.policy !== "default";
    if (compiled) await changes.change(mutate);
    else {
      await changes.serial(mutate);
      // A PUT queued before this DELETE gave it a policy meanwhile: take its rule out too.
      if (hadPolicy) await changes.applyCore();
    }
    discovery.forget(key);
    accounting.forget(key);
    if (compiled || hadPolicy) this.appliedPolicies = this.policyKey();
  }

  /** `GET /traffic`: one device's traffic (400 for an unknown id), or every device's. */
  traffic(range: TrafficRange, deviceId?: string): TrafficView {
    const { store, clock, accounting } = this.opts;
    let key: number | undefined;
    if (deviceId !== undefined) {
      const row = store.devices.get(deviceId);
      if (!row) throw unknownDevice();
      key = row.key;
    }
    return trafficView({
      store,
      range,
      now: clock.now(),
      key,
      unwritten: accounting.unwritten(),
      nameOf: (k) => {
        const row = store.devices.byKey(k);
        if (!row) return null;
        const latest = store.devices.addressesOf(k).sort((a, b) => b.last_seen - a.last_seen)[0];
        return { id: row.id, name: displayName(row, latest?.ip ?? (row.mac ? null : row.id)) };
      },
    });
  }

  /**
   * Devices or addresses changed: when the compiled policies differ from those last applied
   * (a device with a policy of its own got another address), the configuration is compiled and
   * applied again through the change queue.
   */
  devicesChanged(): void {
    const key = this.policyKey();
    if (key === this.appliedPolicies) return;
    this.appliedPolicies = key;
    this.opts.changes.applyCore().catch((err: unknown) => {
      this.opts.log.error(
        "devices.apply_failed",
        "Applying the devices' policies to the core failed",
        { err },
      );
    });
  }

  private policyKey(): string {
    return JSON.stringify(this.opts.store.devices.policies());
  }
}

/** The operator's name, else the lease's host name, else the address. */
export function displayName(row: DeviceRow, ip: string | null): string {
  return row.name || row.discovered_name || ip || row.id;
}
