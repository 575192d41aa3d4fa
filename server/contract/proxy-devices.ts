import { z } from "zod";

/**
 * The gateway's LAN devices and the traffic each one moved: `GET /devices`, `PUT` and
 * `DELETE /devices/:id`, `GET /traffic`, and the devices member of a backup.
 */

/** What a device may do: the compiled rules' choice, or none of its own ("default"). */
export const DevicePolicySchema = z.enum(
  ["default", "direct", "proxy", "block"],
  "must be default, direct, proxy or block",
);
export type DevicePolicy = z.output<typeof DevicePolicySchema>;

/** A MAC address as devices are keyed by it: six lower-case hexadecimal pairs. */
export const MAC_PATTERN = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/;
/** The longest name an operator may give a device. */
export const MAX_DEVICE_NAME = 64;
/** How many devices a backup may name. */
export const MAX_BACKUP_DEVICES = 10_000;
/** Seen within this long counts as online. */
export const ONLINE_MS = 5 * 60 * 1000;

/** An operator's name for a device: trimmed, at most 64 characters, no control characters. */
export const DeviceNameSchema = z
  .string("must be a string")
  .trim()
  .max(MAX_DEVICE_NAME, `must be at most ${MAX_DEVICE_NAME} characters`)
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");

/** Bytes a device moved in some span. */
export const ByteCountsSchema = z.object({ upload: z.number(), download: z.number() });
export type ByteCounts = z.output<typeof ByteCountsSchema>;

/** One device as `GET /devices` lists it. */
export const DeviceSchema = z.object({
  /** Its MAC address when known, else its IP address. */
  id: z.string(),
  /** The operator's name, else `discoveredName`, else the IP address. */
  name: z.string(),
  /** The host name its DHCP lease gave, or null. */
  discoveredName: z.string().nullable(),
  /** The address it used last (null for a device known only from a backup). */
  ip: z.string().nullable(),
  /** Every address the device's policy is compiled for now. */
  addresses: z.array(z.string()),
  mac: z.string().nullable(),
  /** The maker its MAC's vendor prefix is registered to, or null (unknown, or a private MAC). */
  vendor: z.string().nullable(),
  /** RFC 3339; null for a device known only from a backup, not seen here yet. */
  firstSeen: z.string().nullable(),
  lastSeen: z.string().nullable(),
  /** Seen in the last five minutes. */
  online: z.boolean(),
  policy: DevicePolicySchema,
  /** What it moved since the gateway's local midnight. */
  today: ByteCountsSchema,
});
export type Device = z.output<typeof DeviceSchema>;
export const DeviceListSchema = z.array(DeviceSchema);

/** Body of `PUT /devices/:id`: a new name ("" clears it), a new policy, or both. */
export const DevicePatchSchema = z.strictObject({
  name: DeviceNameSchema.optional(),
  policy: DevicePolicySchema.optional(),
});
export type DevicePatch = z.output<typeof DevicePatchSchema>;

export const TRAFFIC_RANGES = ["24h", "7d", "30d"] as const;
export const TrafficRangeSchema = z.enum(TRAFFIC_RANGES, "must be 24h, 7d or 30d");
export type TrafficRange = z.output<typeof TrafficRangeSchema>;

/** Query of `GET /traffic`. */
export const TrafficQuerySchema = z.object({
  range: TrafficRangeSchema.default("24h"),
  /** One device's traffic; without it, every device's together and the top ten. */
  device: z.string("must be a device id").optional(),
});

/** One bucket of a traffic chart. */
export const TrafficPointSchema = z.object({
  /** Start of the bucket (RFC 3339). */
  t: z.string(),
  upload: z.number(),
  download: z.number(),
});
export type TrafficPoint = z.output<typeof TrafficPointSchema>;

/** A device among the range's busiest. */
export const TrafficDeviceSchema = z.object({
  id: z.string(),
  name: z.string(),
  upload: z.number(),
  download: z.number(),
});
export type TrafficDevice = z.output<typeof TrafficDeviceSchema>;

/** `GET /traffic`. */
export const TrafficViewSchema = z.object({
  range: TrafficRangeSchema,
  /** 3600 for 24h (hourly buckets); 86400 otherwise (the gateway's local days). */
  bucketSeconds: z.number(),
  /** Every bucket of the range, oldest first, zeros included. */
  points: z.array(TrafficPointSchema),
  /** The range's ten busiest devices by total (only without `device`). */
  devices: z.array(TrafficDeviceSchema).optional(),
});
export type TrafficView = z.output<typeof TrafficViewSchema>;

/** A device id as a backup may name it: a MAC address or an IP address. */
const deviceId = z
  .string("must be a string")
  .max(64, "is too long")
  .refine(
    (id) => MAC_PATTERN.test(id) || isIpText(id),
    "must be a lower-case MAC address or an IP address",
  );

/** A backup's device: what the operator chose for it. */
export const BackupDeviceSchema = z.strictObject({
  id: deviceId,
  name: DeviceNameSchema,
  policy: DevicePolicySchema,
});
export type BackupDevice = z.output<typeof BackupDeviceSchema>;
export const BackupDevicesSchema = z
  .array(BackupDeviceSchema)
  .max(MAX_BACKUP_DEVICES, `at most ${MAX_BACKUP_DEVICES} devices`);

/**
 * Whether `text` is an IPv4 or IPv6 address as written (no zone, no brackets). The contract
 * imports only zod, so this is the URL parser's reading, not node:net's.
 */
export function isIpText(text: string): boolean {
  if (/^(\d{1,3})(\.\d{1,3}){3}$/.test(text)) {
    return text.split(".").every((part) => Number(part) <= 255 && String(Number(part)) === part);
  }
  if (!text.includes(":") || !/^[0-9a-f:.]+$/i.test(text)) return false;
  try {
    return new URL(`http://[${text}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}
