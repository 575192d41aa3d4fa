/** Messages between the load benchmark's three processes (orchestrator, service, load). */

/** Service process -> orchestrator, once both services listen. */
export interface ServiceReady {
  kind: "ready";
  parcelUrl: string;
  proxyUrl: string;
  controllerPort: number;
  setupToken: string;
}

/** Service process -> orchestrator: its event-loop delay since the last reset. */
export interface ServiceStats {
  kind: "stats";
  loopP50Ms: number;
  loopP99Ms: number;
  loopMaxMs: number;
  heapUsed: number;
}

/** Orchestrator -> service process. */
export type ServiceRequest = { kind: "reset" } | { kind: "stats" } | { kind: "stop" };

/** A published parcel the pickup clients fetch, with what its file must be. */
export interface PickupTarget {
  code: string;
  /** "" for a parcel without password. */
  password: string;
  fileId: string;
  size: number;
  sha256: string;
}

/** Orchestrator -> load process: everything it needs to run the workloads. */
export interface LoadConfig {
  seconds: number;
  parcelUrl: string;
  proxyUrl: string;
  pickupClients: number;
  /** Share of the pickup clients that fetch parcels with a password (0..1). */
  passwordShare: number;
  pickupTargets: PickupTarget[];
  uploadClients: number;
  uploadMinBytes: number;
  uploadMaxBytes: number;
  /** One `svc_session=...` cookie per console. */
  consoleCookies: string[];
  /** The core's controller, where the log feeder injects log lines. */
  coreUrl: string;
  coreSecret: string;
  logsPerSecond: number;
}

/** One measured kind of request. */
export interface Measure {
  name: string;
  count: number;
  bytes: number;
  /** Latencies in ms (null where the count has no times); percentiles, not the samples. */
  p50: number | null;
  p99: number | null;
  errors: number;
  /** Error counts by reason (status code, socket error code, short body, ...). */
  reasons: Record<string, number>;
  /** Requests sent once more because their reused keep-alive connection was closed first. */
  retried: number;
}

/** Load process -> orchestrator when every client has finished its first cycle. */
export interface LoadMeasuring {
  kind: "measuring";
}

/** Load process -> orchestrator at the end of the run. */
export interface LoadResult {
  kind: "result";
  /** The start: every client's first cycle, connection included, all begun at once. */
  start: Measure[];
  /** Wall time of the measured phase (after the start), in seconds. */
  elapsed: number;
  measures: Measure[];
  /** Cycles completed per workload (pickup: resolve + download; upload: 4 requests). */
  cycles: Record<string, number>;
  /** SSE events received per event name. */
  events: Record<string, number>;
  /** Streams that ended or reported a disconnect while the run was on. */
  disconnects: number;
  reconnects: number;
  /** Downloads whose bytes were hashed and compared with the published file. */
  verified: number;
  /** CPU time the load process itself used (user + system), in seconds. */
  cpuSeconds: number;
}
