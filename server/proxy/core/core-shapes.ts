import type { LiveColumns } from "../domain/live-delays.js";
import type { NeighbourSource } from "../system/neighbours.js";

/**
 * The shapes the controller client, the core reader and its worker thread pass between them:
 * the core's answers as the service reads them, and the reader's jobs and results. A leaf
 * module: the client runs in the worker and hands its big reads to the reader, so the three
 * would otherwise name each other's types in a ring.
 */

export interface CoreConnection {
  id: string;
  metadata: Record<string, unknown>;
  upload: number;
  download: number;
  start: string;
  chains: string[];
  rule: string;
  rulePayload: string;
  [key: string]: unknown;
}

export interface CoreConnections {
  downloadTotal: number;
  uploadTotal: number;
  memory?: number;
  connections: CoreConnection[];
  [key: string]: unknown;
}

export interface StreamOptions {
  signal?: AbortSignal;
  /** Deadline for the response headers; the stream itself has none. */
  connectTimeoutMs?: number;
}

/** Where the core's controller answers, and with which secret. */
export interface ReaderTarget {
  host: string;
  port: number;
  secret: string;
}

/** One read the service asks of the worker. */
export type ReaderJob =
  | {
      kind: "connections";
      target: ReaderTarget;
      timeoutMs: number;
      /** Names the chains' node steps get (`chainLabels`). */
      subscriptions: Array<{ id: string; name: string }>;
      /** Memory to write the answer into, when it is large enough (reused between reads). */
      out: SharedArrayBuffer | null;
    }
  | { kind: "live-nodes"; target: ReaderTarget; timeoutMs: number }
  | { kind: "counters"; target: ReaderTarget; timeoutMs: number }
  /** Bytes per source address since the previous reading of the count named `key`. */
  | { kind: "accounting"; target: ReaderTarget; timeoutMs: number; key: string }
  /** The makers of MAC addresses, from the IEEE registry the worker loads once. */
  | { kind: "vendors"; macs: string[]; timeoutMs: number }
  /**
   * The neighbour table (IP → MAC): Linux's runs `ip -6 neigh`, whose spawn blocks the
   * calling thread for 5-25 ms, so it is read here, not on the service's event loop.
   */
  | { kind: "neighbours"; source: NeighbourSource; timeoutMs: number };

/**
 * What a read gives: the finished JSON answer as UTF-8 bytes (the first `length` of shared
 * memory: the job's own `out`, or a larger one), or the nodes' live columns.
 */
export type ReaderResult =
  | { kind: "connections"; shared: SharedArrayBuffer; length: number }
  | { kind: "live-nodes"; columns: LiveColumns }
  | { kind: "counters"; counters: CoreCounters }
  | { kind: "accounting"; reading: AccountingReading }
  | { kind: "vendors"; vendors: Array<string | null> }
  | { kind: "neighbours"; table: Map<string, string> };

/** The totals and the count of `GET /connections`, without the connections themselves. */
export interface CoreCounters {
  uploadTotal: number;
  downloadTotal: number;
  connections: number;
}

/** One source address's bytes since the previous reading: `[ip, upload, download]`. */
export type SourceSum = [string, number, number];

/** What one accounting reading gives. */
export interface AccountingReading {
  /** The core's own totals and its connection count now. */
  uploadTotal: number;
  downloadTotal: number;
  connections: number;
  /**
   * Each source address of an open connection (as the core writes it) with the bytes its
   * connections moved since the previous reading; zeros for one that moved nothing.
   */
  sources: SourceSum[];
  /**
   * True for the first reading of a count (a new worker, a new service): it only learns the
   * connections, and counts nothing, since they may have been counted before a restart.
   */
  baseline: boolean;
  /**
   * Bytes the core's totals grew by since the previous reading that no open connection
   * accounts for: connections that closed since (their last bytes), or that opened and
   * closed between two readings. 0 for a baseline.
   */
  missedUpload: number;
  missedDownload: number;
}

/** The client's error, by its class name, so the service can throw the same class. */
export interface ReaderFailure {
  name: string;
  message: string;
  status?: number;
}

/** A job as the worker gets it: numbered, with the longest answer it may read. */
export type ReaderMessage = ReaderJob & { id: number; maxBytes: number };

export type ReaderReply =
  { id: number; ok: true; result: ReaderResult } | { id: number; ok: false; error: ReaderFailure };
