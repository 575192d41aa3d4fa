import { z } from "zod";
import type { ParcelEvent } from "../parcel/events.js";

/**
 * The messages between the desktop app's main process (the host) and the process running the
 * services. Both sides import this module and check what they receive against its schemas:
 * a message that does not match is logged by its shape only and ignored, never trusted.
 * Objects are read loosely (unknown members are dropped), so an older peer still understands
 * a newer one's messages.
 */

const MAX_TEXT = 2000;

function isOrigin(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    (url.protocol === "http:" || url.protocol === "https:") &&
    url.pathname === "/" &&
    !url.search &&
    !url.hash &&
    !url.username &&
    !url.password
  );
}

/** An http(s) origin such as `http://192.168.1.20:8000`. */
export const originSchema = z
  .string()
  .max(300)
  .refine(isOrigin, "must be an http(s) origin such as http://192.168.1.20:8000");

const text = z.string().max(MAX_TEXT);

// ---- Host -> services ----

export const hostMessageSchema = z.discriminatedUnion("type", [
  /** Stop the services and exit (code 0). */
  z.object({ type: z.literal("stop") }),
  /** Replace the parcel service's LAN entry addresses while it runs. */
  z.object({ type: z.literal("entries"), entries: z.array(originSchema).min(1).max(64) }),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;

// ---- Services -> host ----

export const serviceEventSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("parcel.picked_up"),
    parcelId: z.string().min(1).max(200),
    /** The file's name; null when the whole parcel was taken as one ZIP. */
    file: text.nullable(),
    files: z.number().int().min(0),
    /** The recipient's IP address. */
    from: z.string().max(100),
    /** ms since the epoch. */
    at: z.number().int().min(0),
  }),
  z.object({
    kind: z.literal("inbox.delivered"),
    parcelId: z.string().min(1).max(200),
    files: z.array(text).max(100_000),
    /** The sender's IP address. */
    from: z.string().max(100),
    /** ms since the epoch. */
    at: z.number().int().min(0),
  }),
  z.object({
    kind: z.literal("upload.finished"),
    parcelId: z.string().min(1).max(200),
    files: z.array(text).max(100_000),
    /** ms since the epoch. */
    at: z.number().int().min(0),
  }),
]);
export type ServiceEvent = z.infer<typeof serviceEventSchema>;

/** What `ready` says: where the services answer and, on first run, the operator's credentials. */
export const readyInfoSchema = z.object({
  dataDir: text,
  parcel: z
    .object({
      url: originSchema,
      httpsUrl: originSchema.nullable(),
      entries: z.array(originSchema).max(64),
      adminUser: z.string().max(200),
      /**
       * Set only at the start that created the administrator (or reset its password): the
       * one moment it can be kept. A secret: never log it, never hand it to a page.
       */
      generatedAdminPassword: z.string().max(200).nullable(),
    })
    .nullable(),
  proxy: z
    .object({
      url: originSchema,
      /** Set while the proxy console has no administrator yet. A secret, like the password. */
      setupToken: z.string().max(200).nullable(),
    })
    .nullable(),
});
export type ReadyInfo = z.infer<typeof readyInfoSchema>;

/** The proxy core as the tray shows it. */
export const coreStatusSchema = z.object({
  /** The core's executable exists. */
  installed: z.boolean(),
  /** The core's controller answers. */
  online: z.boolean(),
  /** Name of the node the traffic goes through now, when the core says. */
  node: z.string().max(MAX_TEXT).nullable(),
});
export type CoreStatus = z.infer<typeof coreStatusSchema>;

/**
 * Why the services could not start. Stable codes a window can say in the reader's language;
 * the message is an English sentence for logs and for codes a window does not know yet.
 */
export const START_ERROR_CODES = [
  /** An option is not usable (a bad port number, a bad entry address). */
  "config",
  /** The data folder cannot be created, is a file, or cannot be written. */
  "data_dir",
  /** Another program uses a port the services want. */
  "port_in_use",
  /** The system does not allow this user to listen on that port or address. */
  "port_denied",
  /** Anything else; the message says what. */
  "start_failed",
] as const;
export type StartErrorCode = (typeof START_ERROR_CODES)[number];

export const serviceMessageSchema = z.discriminatedUnion("type", [
  readyInfoSchema.extend({ type: z.literal("ready") }),
  z.object({
    type: z.literal("status"),
    /** The parcel entries in force (after an `entries` message); null without the parcel service. */
    entries: z.array(originSchema).max(64).nullable(),
    /** Null without the proxy service. */
    core: coreStatusSchema.nullable(),
  }),
  z.object({ type: z.literal("event"), event: serviceEventSchema }),
  z.object({ type: z.literal("error"), code: z.enum(START_ERROR_CODES), message: text }),
]);
export type ServiceMessage = z.infer<typeof serviceMessageSchema>;
export type StatusMessage = Extract<ServiceMessage, { type: "status" }>;

// The parcel service's events travel as they are: the two definitions must stay one shape.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameEvents: Same<ServiceEvent, ParcelEvent> = true;
void sameEvents;

/** The result of checking a received message. */
export type Checked<T> = { ok: true; message: T } | { ok: false; problem: string };

/**
 * Names what is wrong with a message without repeating its values (a message may carry a
 * password): the paths and the kinds of issue only.
 */
function problemOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join(".") : "(message)"}: ${i.code}`)
    .join("; ");
}

function check<T>(schema: z.ZodType<T>, raw: unknown): Checked<T> {
  const parsed = schema.safeParse(raw);
  return parsed.success
    ? { ok: true, message: parsed.data }
    : { ok: false, problem: problemOf(parsed.error) };
}

/** What the services check each message from the host with. */
export function checkHostMessage(raw: unknown): Checked<HostMessage> {
  return check(hostMessageSchema, raw);
}

/** What the host checks each message from the services with. */
export function checkServiceMessage(raw: unknown): Checked<ServiceMessage> {
  return check(serviceMessageSchema, raw);
}
