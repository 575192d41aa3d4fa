import type { Db } from "../../db/open.js";
import { MAC_PATTERN, type BackupDevice, type DevicePolicy } from "../../contract/proxy-devices.js";

/** A device as it is stored. */
export interface DeviceRow {
  key: number;
  id: string;
  mac: string | null;
  name: string;
  discovered_name: string | null;
  vendor: string | null;
  policy: DevicePolicy;
  first_seen: number | null;
  last_seen: number | null;
}

/** An address a device holds now. */
export interface AddressRow {
  ip: string;
  device_key: number;
  last_seen: number;
}

/** What the operator chose for a device: what backups carry and restores put back. */
export type DeviceChoice = BackupDevice;

/** The devices, their addresses and what the operator chose for each (names, policies). */
export class DevicesRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      list: db.prepare("SELECT * FROM devices"),
      byId: db.prepare("SELECT * FROM devices WHERE id = ?"),
      byKey: db.prepare("SELECT * FROM devices WHERE key = ?"),
      insert: db.prepare(
        "INSERT INTO devices (id, mac, first_seen, last_seen) VALUES (?, ?, ?, ?) RETURNING key",
      ),
      insertChoice: db.prepare(
        "INSERT INTO devices (id, mac, name, policy) VALUES (?, ?, ?, ?) RETURNING key",
      ),
      setChoice: db.prepare("UPDATE devices SET name = ?, policy = ? WHERE key = ?"),
      setName: db.prepare("UPDATE devices SET name = ? WHERE key = ?"),
      setPolicy: db.prepare("UPDATE devices SET policy = ? WHERE key = ?"),
      setDiscovered: db.prepare("UPDATE devices SET discovered_name = ? WHERE key = ?"),
      setVendor: db.prepare("UPDATE devices SET vendor = ? WHERE key = ?"),
      seen: db.prepare(
        `UPDATE devices SET last_seen = MAX(COALESCE(last_seen, 0), ?),
           first_seen = COALESCE(first_seen, ?) WHERE key = ?`,
      ),
      remove: db.prepare("DELETE FROM devices WHERE key = ?"),
      dropBare: db.prepare(
        "DELETE FROM devices WHERE first_seen IS NULL AND name = '' AND policy = 'default'",
      ),
      addresses: db.prepare("SELECT * FROM device_addresses"),
      addressesOf: db.prepare("SELECT * FROM device_addresses WHERE device_key = ?"),
      address: db.prepare("SELECT * FROM device_addresses WHERE ip = ?"),
      assign: db.prepare(
        `INSERT INTO device_addresses (ip, device_key, last_seen) VALUES (?, ?, ?)
         ON CONFLICT(ip) DO UPDATE SET device_key = excluded.device_key,
           last_seen = MAX(last_seen, excluded.last_seen)`,
      ),
      touchAddress: db.prepare(
        "UPDATE device_addresses SET last_seen = MAX(last_seen, ?) WHERE ip = ?",
      ),
      dropAddress: db.prepare("DELETE FROM device_addresses WHERE ip = ?"),
      moveAddresses: db.prepare("UPDATE device_addresses SET device_key = ? WHERE device_key = ?"),
      // A device known by its IP address holds that address even before it is seen (one
      // restored from a backup), unless another device holds it now.
      policies: db.prepare(
        `SELECT d.policy AS policy, a.ip AS ip FROM devices d
           JOIN device_addresses a ON a.device_key = d.key
          WHERE d.policy <> 'default'
         UNION
         SELECT d.policy, d.id FROM devices d
          WHERE d.policy <> 'default' AND d.mac IS NULL
            AND NOT EXISTS (SELECT 1 FROM device_addresses a WHERE a.ip = d.id)
         ORDER BY ip`,
      ),
      choices: db.prepare("SELECT id, name, policy FROM devices ORDER BY id"),
    };
  }

  list(): DeviceRow[] {
    return this.stmts.list.all() as DeviceRow[];
  }

  get(id: string): DeviceRow | null {
    return (this.stmts.byId.get(id) as DeviceRow | undefined) ?? null;
  }

  byKey(key: number): DeviceRow | null {
    return (this.stmts.byKey.get(key) as DeviceRow | undefined) ?? null;
  }

  /** A device seen for the first time; answers its key. */
  create(id: string, mac: string | null, seenAt: number): number {
    return (this.stmts.insert.get(id, mac, seenAt, seenAt) as { key: number }).key;
  }

  setName(key: number, name: string): void {
    this.stmts.setName.run(name, key);
  }

  setPolicy(key: number, policy: DevicePolicy): void {
    this.stmts.setPolicy.run(policy, key);
  }

  setDiscoveredName(key: number, name: string | null): void {
    this.stmts.setDiscovered.run(name, key);
  }

  setVendor(key: number, vendor: string | null): void {
    this.stmts.setVendor.run(vendor, key);
  }

  /** Marks a device seen at `at` (the first time too, for one known only from a backup). */
  seen(key: number, at: number): void {
    this.stmts.seen.run(at, at, key);
  }

  /** Forgets a device: its addresses and its traffic go with it (cascade). */
  remove(key: number): boolean {
    return this.stmts.remove.run(key).changes > 0;
  }

  addresses(): AddressRow[] {
    return this.stmts.addresses.all() as AddressRow[];
  }

  addressesOf(key: number): AddressRow[] {
    return this.stmts.addressesOf.all(key) as AddressRow[];
  }

  holderOf(ip: string): AddressRow | null {
    return (this.stmts.address.get(ip) as AddressRow | undefined) ?? null;
  }

  /** Gives `ip` to a device (taking it from the one that held it before). */
  assign(ip: string, key: number, at: number): void {
    this.stmts.assign.run(ip, key, at);
  }

  touchAddress(ip: string, at: number): void {
    this.stmts.touchAddress.run(at, ip);
  }

  dropAddress(ip: string): void {
    this.stmts.dropAddress.run(ip);
  }

  /**
   * Moves what device `from` holds to device `into` (its addresses; its traffic is moved by
   * the traffic repository) and removes `from`. Call inside a transaction.
   */
  absorb(from: number, into: number): void {
    this.stmts.moveAddresses.run(into, from);
    this.stmts.remove.run(from);
  }

  /** Every address of a device with a policy of its own, with that policy, by address. */
  policies(): Array<{ policy: Exclude<DevicePolicy, "default">; ip: string }> {
    return this.stmts.policies.all() as Array<{
      policy: Exclude<DevicePolicy, "default">;
      ip: string;
    }>;
  }

  /** Every device's name and policy, by id. */
  choices(): DeviceChoice[] {
    return this.stmts.choices.all() as DeviceChoice[];
  }

  /**
   * Makes the operator's choices exactly `wanted`: a device it names gets that name and policy
   * (one not known here is kept with them, to be recognised when it shows up), every other
   * device gets none, and a device known only from a backup that is left with none is dropped.
   * Call inside a transaction.
   */
  replaceChoices(wanted: readonly DeviceChoice[]): void {
    const byId = new Map(wanted.map((c) => [c.id, c]));
    for (const row of this.list()) {
      const c = byId.get(row.id);
      byId.delete(row.id);
      const name = c?.name ?? "";
      const policy = c?.policy ?? "default";
      if (row.name !== name || row.policy !== policy)
        this.stmts.setChoice.run(name, policy, row.key);
    }
    for (const c of byId.values()) {
      if (c.name === "" && c.policy === "default") continue;
      this.stmts.insertChoice.run(c.id, MAC_PATTERN.test(c.id) ? c.id : null, c.name, c.policy);
    }
    this.stmts.dropBare.run();
  }
}
