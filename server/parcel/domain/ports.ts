import type { Clock } from "../../clock.js";
import type { ServiceLog } from "../../log.js";
import type { ParcelProblemCode } from "../../problem-codes.js";
import type { AuditAction, AuditDetail } from "../../contract/parcel-audit.js";
import type { VerifyStatus } from "../../contract/parcel-verify.js";
import type { ParcelEvent } from "../events.js";
import type { ParcelRepos } from "../repos/index.js";
import type { BlobStore } from "../storage/blob-store.js";
import type { Policy, Runtime } from "./policy.js";

// What the parcel domain is given: plain values and small named ports, never a request, a
// router or the route table. The routes resolve who asks and from where, and pass it in.

/** Who did something, as the audit log and the rules about ownership see it. */
export type Actor =
  | { kind: "admin"; username: string }
  | { kind: "visitor"; id: string }
  | { kind: "token" }
  | { kind: "anonymous" };

/** The `source` of an audit record written by the service itself (timers, start). */
export const LOCAL_SOURCE = "local";

/**
 * Appends an audit record. `source` is the client's address the route read from the request
 * (or `LOCAL_SOURCE` for the service itself); the record's source is `<actor>@<source>`.
 * The action and its detail's members are the ones the contract lists (contract/parcel-audit.ts),
 * which the console puts in words: a member not listed there does not compile.
 */
export type AuditPort = <A extends AuditAction>(
  actor: Actor,
  action: A,
  target: string,
  source: string,
  detail?: AuditDetail<A>,
) => void;

/** In-memory activity counters (concurrency stats, blobs being read). */
export interface Activity {
  uploadsActive: number;
  downloadsActive: number;
  /** sha256 -> number of running downloads reading it; cleanup never deletes these. */
  reading: Map<string, number>;
  /** file ids with a PUT or PATCH in flight (one writer per file: another is refused). */
  uploading: Set<string>;
  /** file id -> stops its running PUT (used when the session ends under it). */
  uploadStops: Map<string, () => void>;
  /**
   * parcel id -> running downloads of it (each taken while the parcel was live). Its completion
   * may renew the parcel, so past its expiry the sweep leaves it alone until they end (see
   * `renewalHold` in domain/renewal-hold.ts). In memory: after a restart nothing is in flight.
   */
  downloading: Map<string, number>;
  /**
   * Bytes of resumable parts read back to rebuild a hash state, since the start: a PATCH pays
   * only for the bytes a cut request before it added (the hash is kept at synced offsets).
   */
  resumeRereadBytes: number;
}

/**
 * Keys kept in the database: pickup codes (HMAC), pickup and inbox cookies (HMAC), and the
 * inbox's sealed codes (the inbox's own and its deliveries', shown to the administrator).
 */
export interface ParcelKeys {
  readonly code: Buffer;
  readonly cookie: Buffer;
  readonly inbox: Buffer;
}

/** An address the service answers on, as a share link names it. */
export interface EntryLink {
  readonly label: string;
  readonly origin: string;
}

/** The check of every stored blob (`blob-verifier.ts`), as the routes and the service use it. */
export interface BlobCheck {
  status(): VerifyStatus;
  /** Starts a run now; false when one is running. */
  start(): boolean;
  /** Starts a run when the weekly one is due; false otherwise. */
  startIfDue(): boolean;
  /** Stops a running check and waits for it. */
  stop(): Promise<void>;
}

/** How hard a check reads. */
export interface VerifyPace {
  /** Bytes read (and hashed) at a time: small enough that the event loop turns between. */
  chunkBytes: number;
  /**
   * After each piece the check rests this many times as long as the piece took (1: it uses at
   * most half of the disk's time, and of the service's thread); `busy` while a transfer runs.
   */
  rest: number;
  busyRest: number;
  /** The least rest after a piece, in ms (0: a turn of the event loop). */
  minRestMs?: number;
}

/**
 * The ports of the parcel domain. `ParcelDomain` (the routes' context) extends it; a domain
 * function names this type (or a `Pick` of it), so it cannot reach the route table, the
 * service's options or a request.
 */
export interface ParcelDomain {
  repos: ParcelRepos;
  clock: Clock;
  /** Unix seconds from the injected clock. */
  now(): number;
  policy(): Policy;
  runtime(): Runtime;
  /** Structured log (`log.warn(code, "...", { err })`). */
  log: ServiceLog<ParcelProblemCode>;
  storage: BlobStore;
  keys: ParcelKeys;
  activity: Activity;
  audit: AuditPort;
  /** Free bytes on the data dir's file system. */
  diskFree(): number;
  /** Schedules background reclamation of blobs no live parcel references. */
  scheduleReclaim(): void;
  /** Hands an event to the service's listener; a listener that throws does not affect the caller. */
  emit(event: ParcelEvent): void;
  /** The addresses the service answers on (share links name one per entry). */
  entries: { readonly list: readonly EntryLink[] };
  /** The computer's name a sender sees when opening the inbox. */
  computerName(): string;
}
