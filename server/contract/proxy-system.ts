import { z } from "zod";
import {
  GatehousePort,
  httpUrl,
  intervalHours,
  MAX_RULES,
  MAX_SUBSCRIPTIONS,
  recordId,
  Rule,
  Settings,
  subscriptionName,
} from "./proxy-fields.js";
import { Params } from "./proxy-views.js";
import { BackupDevice, BackupDevices } from "./proxy-devices.js";

/** The system pages: the core, its data files, the machine, updates, backups and live data. */

/** Body of `POST /system/service`. */
export const ServiceAction = z.object({ action: z.enum(["start", "stop", "restart"]) });

/** Routes that take no parameters: an empty object (or, where said, no body at all). */
export const NoFields = z.strictObject({});

export const NetworkReport = z.object({
  interfaces: z.array(
    z.object({ name: z.string(), addresses: z.array(z.string()), up: z.boolean() }),
  ),
  ipForward: z.boolean(),
  tunDevice: z.boolean(),
  rulesInstalled: z.boolean(),
  serviceControl: z.boolean(),
  /** The console never hands out addresses itself. */
  dhcpManaged: z.literal(false),
  guidance: z.string(),
  /**
   * The steps `guidance` names, as stable codes the console words in the reader's language:
   * `ip_forward`, `tun_device`, `geodata`, `core_missing`, and always `no_dhcp` last.
   */
  guidanceCodes: z.array(z.string()),
  /** The ports this Gatehouse listens on, which the core's listeners may not take. */
  gatehousePorts: z.array(GatehousePort),
});
export type NetworkReport = z.output<typeof NetworkReport>;

export const UpdateReport = z.object({
  current: z.string(),
  latest: z.string(),
  status: z.enum(["latest", "outdated"]).nullable(),
  checkedAt: z.string(),
  releaseURL: z.string(),
});
export type UpdateReport = z.output<typeof UpdateReport>;

export const ConnectivitySite = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  category: z.enum(["global", "domestic"]),
});
export type ConnectivitySite = z.output<typeof ConnectivitySite>;
export const ConnectivitySites = z.array(ConnectivitySite);

/** Body of `POST /system/connectivity/test`. */
export const ConnectivityTest = z.object({ siteId: z.string() });

export const ConnectivityResult = z.object({
  status: z.enum(["ok", "failed", "timeout"]),
  /** A sentence a person understands (never the network library's own text). */
  detail: z.string(),
  /** Stable code of `detail`. */
  code: z.string(),
  httpStatus: z.number(),
  durationMS: z.number(),
  tlsVerified: z.boolean(),
  checkedAt: z.string(),
});
export type ConnectivityResult = z.output<typeof ConnectivityResult>;

/** One geodata file in the core's home. */
export const GeodataFile = z.object({
  name: z.string(),
  size: z.number(),
  sha256: z.string(),
  /** When Gatehouse put this file there (RFC 3339). */
  updatedAt: z.string(),
});
export type GeodataFile = z.output<typeof GeodataFile>;
/** Answer of a geodata update: the files swapped in, each with its checksum. */
export const GeodataUpdated = z.object({
  ok: z.literal(true),
  files: z.array(z.object({ name: z.string(), sha256: z.string() })),
});
export type GeodataUpdated = z.output<typeof GeodataUpdated>;

export const InstallProgress = z.object({
  phase: z.enum(["release", "download", "unpack", "verify", "test", "swap", "restart"]),
  bytesDone: z.number(),
  /** The asset's size as the release document gives it (null until known). */
  bytesTotal: z.number().nullable(),
});

/** `GET /system/core`: which core runs, where from, and an install in progress. */
export const CoreInfo = z.object({
  installed: z.boolean(),
  version: z.string().nullable(),
  path: z.string().nullable(),
  source: z.enum(["configured", "installed", "bundled", "path"]).nullable(),
  previousVersion: z.string().nullable(),
  installing: z.boolean(),
  progress: InstallProgress.nullable(),
  geodata: z.array(GeodataFile),
});
export type CoreInfo = z.output<typeof CoreInfo>;
/** Answer of an install or a rollback: the version that now runs. */
export const CoreInstalled = z.object({ ok: z.literal(true), version: z.string() });
export type CoreInstalled = z.output<typeof CoreInstalled>;

/** A backup's subscription: what an operator entered, never what a refresh learnt. */
export const BackupSubscription = z.object({
  id: recordId,
  name: subscriptionName,
  url: httpUrl(2048),
  enabled: z.boolean("must be true or false"),
  intervalHours,
});

/**
 * `GET /system/backup` writes this document; `POST /system/restore` reads it (version first,
 * so a wrong version is its own error; settings and rules are checked one by one after).
 */
export const BackupFile = z.object({
  version: z.literal(1, "unsupported backup version (only 1 is accepted)"),
  exportedAt: z.string().optional(),
  state: z.object({
    settings: z.unknown(),
    subscriptions: z
      .array(BackupSubscription)
      .max(MAX_SUBSCRIPTIONS, `at most ${MAX_SUBSCRIPTIONS} subscriptions`),
    rules: z.array(z.object({ id: recordId }).passthrough()).max(MAX_RULES, "too many rules"),
    /** The devices' names and policies; a backup made before devices were known has none. */
    devices: BackupDevices.optional(),
  }),
});

/**
 * A backup's rule, first read: `enabled` must be a boolean (a missing one is not taken as on);
 * its other fields are then checked as a rule body.
 */
export const BackupRule = z.object({
  type: z.unknown(),
  value: z.unknown(),
  action: z.unknown(),
  enabled: z.boolean("must be true or false"),
});

/** The backup as the service writes it. */
export const BackupExport = z.object({
  version: z.literal(1),
  exportedAt: z.string(),
  state: z.object({
    settings: Settings,
    subscriptions: z.array(BackupSubscription),
    rules: z.array(Rule),
    devices: z.array(BackupDevice),
  }),
});

export type BackupExport = z.output<typeof BackupExport>;

/** One step of a connection's chain as the service names it for people. */
export const ChainLabel = z.object({
  name: z.string(),
  /** The subscription the node comes from; null for groups and built-ins. */
  subscription: z.string().nullable(),
});
export type ChainLabel = z.output<typeof ChainLabel>;

/** One connection as the core reports it; the core's other members pass through. */
export const Connection = z
  .object({
    id: z.string(),
    metadata: z
      .object({
        network: z.string().optional(),
        type: z.string().optional(),
        sourceIP: z.string().optional(),
        destinationIP: z.string().optional(),
        sourcePort: z.string().optional(),
        destinationPort: z.string().optional(),
        host: z.string().optional(),
        process: z.string().optional(),
      })
      .catchall(z.unknown()),
    upload: z.number(),
    download: z.number(),
    start: z.string(),
    /** The core's own names, entry group last; nodes carry an internal prefix. */
    chains: z.array(z.string()),
    /** The same steps named for people, added by the service. */
    chainLabels: z.array(ChainLabel).optional(),
    rule: z.string(),
    rulePayload: z.string(),
  })
  .catchall(z.unknown());
export type Connection = z.output<typeof Connection>;

export const ConnectionsView = z
  .object({
    downloadTotal: z.number(),
    uploadTotal: z.number(),
    /** The core sends null when there are none. */
    connections: z.array(Connection).nullable(),
  })
  .catchall(z.unknown());
export type ConnectionsView = z.output<typeof ConnectionsView>;

/** Query of `GET /logs`. */
export const LOG_LEVELS = ["debug", "info", "warning", "error", "silent"] as const;
export const LogsQuery = z.object({ level: z.enum(LOG_LEVELS).default("info") });

/** Data of a `metrics` event on `GET /events`. */
export const Metrics = z.object({
  up: z.number(),
  down: z.number(),
  upTotal: z.number(),
  downTotal: z.number(),
  connections: z.number(),
  coreOnline: z.boolean(),
  time: z.string(),
});
export type Metrics = z.output<typeof Metrics>;

/** Data of a `log` event on `GET /logs`. */
export const LogItem = z.object({
  type: z.string(),
  payload: z.string(),
  /** When the service received the line (RFC 3339). */
  time: z.string().optional(),
});
export type LogItem = z.output<typeof LogItem>;

/** Data of a `disconnected` event on `GET /logs`: why the stream ended. */
export const LogsEnded = z.object({
  error: z.string(),
  code: z.string(),
  params: Params.optional(),
});
export type LogsEnded = z.output<typeof LogsEnded>;
