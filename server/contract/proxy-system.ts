import { z } from "zod";
import {
  GatehousePortSchema,
  httpUrl,
  intervalHoursSchema,
  MAX_RULES,
  MAX_SUBSCRIPTIONS,
  recordIdSchema,
  RuleSchema,
  SettingsSchema,
  subscriptionNameSchema,
} from "./proxy-fields.js";
import { ParamsSchema } from "./proxy-views.js";
import { BackupDeviceSchema, BackupDevicesSchema } from "./proxy-devices.js";

/** The system pages: the core, its data files, the machine, updates, backups and live data. */

/** Body of `POST /system/service`. */
export const ServiceActionSchema = z.object({ action: z.enum(["start", "stop", "restart"]) });

/** Routes that take no parameters: an empty object (or, where said, no body at all). */
export const NoFieldsSchema = z.strictObject({});

export const NetworkReportSchema = z.object({
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
  gatehousePorts: z.array(GatehousePortSchema),
});
export type NetworkReport = z.output<typeof NetworkReportSchema>;

export const UpdateReportSchema = z.object({
  current: z.string(),
  latest: z.string(),
  status: z.enum(["latest", "outdated"]).nullable(),
  checkedAt: z.string(),
  releaseURL: z.string(),
});
export type UpdateReport = z.output<typeof UpdateReportSchema>;

export const ConnectivitySiteSchema = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  category: z.enum(["global", "domestic"]),
});
export type ConnectivitySite = z.output<typeof ConnectivitySiteSchema>;
export const ConnectivitySitesSchema = z.array(ConnectivitySiteSchema);

/** Body of `POST /system/connectivity/test`. */
export const ConnectivityTestSchema = z.object({ siteId: z.string() });

export const ConnectivityResultSchema = z.object({
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
export type ConnectivityResult = z.output<typeof ConnectivityResultSchema>;

/** One geodata file in the core's home. */
export const GeodataFileSchema = z.object({
  name: z.string(),
  size: z.number(),
  sha256: z.string(),
  /** When Gatehouse put this file there (RFC 3339). */
  updatedAt: z.string(),
});
export type GeodataFile = z.output<typeof GeodataFileSchema>;
/** Answer of a geodata update: the files swapped in, each with its checksum. */
export const GeodataUpdatedSchema = z.object({
  ok: z.literal(true),
  files: z.array(z.object({ name: z.string(), sha256: z.string() })),
});
export type GeodataUpdated = z.output<typeof GeodataUpdatedSchema>;

export const InstallProgressSchema = z.object({
  phase: z.enum(["release", "download", "unpack", "verify", "test", "swap", "restart"]),
  bytesDone: z.number(),
  /** The asset's size as the release document gives it (null until known). */
  bytesTotal: z.number().nullable(),
});

/** `GET /system/core`: which core runs, where from, and an install in progress. */
export const CoreInfoSchema = z.object({
  installed: z.boolean(),
  version: z.string().nullable(),
  path: z.string().nullable(),
  source: z.enum(["configured", "installed", "bundled", "path"]).nullable(),
  previousVersion: z.string().nullable(),
  installing: z.boolean(),
  progress: InstallProgressSchema.nullable(),
  geodata: z.array(GeodataFileSchema),
});
export type CoreInfo = z.output<typeof CoreInfoSchema>;
/** Answer of an install or a rollback: the version that now runs. */
export const CoreInstalledSchema = z.object({ ok: z.literal(true), version: z.string() });
export type CoreInstalled = z.output<typeof CoreInstalledSchema>;

/** A backup's subscription: what an operator entered, never what a refresh learnt. */
export const BackupSubscriptionSchema = z.object({
  id: recordIdSchema,
  name: subscriptionNameSchema,
  url: httpUrl(2048),
  enabled: z.boolean("must be true or false"),
  intervalHours: intervalHoursSchema,
});

/**
 * `GET /system/backup` writes this document; `POST /system/restore` reads it (version first,
 * so a wrong version is its own error; settings and rules are checked one by one after).
 */
export const BackupFileSchema = z.object({
  version: z.literal(1, "unsupported backup version (only 1 is accepted)"),
  exportedAt: z.string().optional(),
  state: z.object({
    settings: z.unknown(),
    subscriptions: z
      .array(BackupSubscriptionSchema)
      .max(MAX_SUBSCRIPTIONS, `at most ${MAX_SUBSCRIPTIONS} subscriptions`),
    rules: z.array(z.object({ id: recordIdSchema }).passthrough()).max(MAX_RULES, "too many rules"),
    /** The devices' names and policies; a backup made before devices were known has none. */
    devices: BackupDevicesSchema.optional(),
  }),
});

/**
 * A backup's rule, first read: `enabled` must be a boolean (a missing one is not taken as on);
 * its other fields are then checked as a rule body.
 */
export const BackupRuleSchema = z.object({
  type: z.unknown(),
  value: z.unknown(),
  action: z.unknown(),
  enabled: z.boolean("must be true or false"),
});

/** The backup as the service writes it. */
export const BackupExportSchema = z.object({
  version: z.literal(1),
  exportedAt: z.string(),
  state: z.object({
    settings: SettingsSchema,
    subscriptions: z.array(BackupSubscriptionSchema),
    rules: z.array(RuleSchema),
    devices: z.array(BackupDeviceSchema),
  }),
});

export type BackupExport = z.output<typeof BackupExportSchema>;

/** One step of a connection's chain as the service names it for people. */
export const ChainLabelSchema = z.object({
  name: z.string(),
  /** The subscription the node comes from; null for groups and built-ins. */
  subscription: z.string().nullable(),
});
export type ChainLabel = z.output<typeof ChainLabelSchema>;

/** One connection as the core reports it; the core's other members pass through. */
export const ConnectionSchema = z
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
    chainLabels: z.array(ChainLabelSchema).optional(),
    rule: z.string(),
    rulePayload: z.string(),
  })
  .catchall(z.unknown());
export type Connection = z.output<typeof ConnectionSchema>;

export const ConnectionsViewSchema = z
  .object({
    downloadTotal: z.number(),
    uploadTotal: z.number(),
    /** The core sends null when there are none. */
    connections: z.array(ConnectionSchema).nullable(),
  })
  .catchall(z.unknown());
export type ConnectionsView = z.output<typeof ConnectionsViewSchema>;

/** Query of `GET /logs`. */
export const LOG_LEVELS = ["debug", "info", "warning", "error", "silent"] as const;
export const LogsQuerySchema = z.object({ level: z.enum(LOG_LEVELS).default("info") });

/**
 * How often `GET /events` sends a `metrics` event: the service reads the core this often, and
 * the Dashboard's chart draws its newest sample one interval behind the moment it is drawn.
 */
export const METRICS_INTERVAL_MS = 2000;

/** Data of a `metrics` event on `GET /events`. */
export const MetricsSchema = z.object({
  up: z.number(),
  down: z.number(),
  upTotal: z.number(),
  downTotal: z.number(),
  connections: z.number(),
  coreOnline: z.boolean(),
  time: z.string(),
});
export type Metrics = z.output<typeof MetricsSchema>;

/** Data of a `log` event on `GET /logs`. */
export const LogItemSchema = z.object({
  type: z.string(),
  payload: z.string(),
  /** When the service received the line (RFC 3339). */
  time: z.string().optional(),
});
export type LogItem = z.output<typeof LogItemSchema>;

/** Data of a `disconnected` event on `GET /logs`: why the stream ended. */
export const LogsEndedSchema = z.object({
  error: z.string(),
  code: z.string(),
  params: ParamsSchema.optional(),
});
export type LogsEnded = z.output<typeof LogsEndedSchema>;
