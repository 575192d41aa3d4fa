/** Shapes of the proxy service API v1 as the console reads them (see the proxy spec). */

export interface AuthStatus {
  initialized: boolean;
  authenticated: boolean;
  csrf: string;
}

export interface Settings {
  proxyEnabled: boolean;
  tunEnabled: boolean;
  selectionMode: "manual" | "auto";
  selectedNode: string;
  lanIP: string;
  lanCIDR: string;
  gateway: string;
  interface: string;
  mixedPort: number;
  dnsPort: number;
  testURL: string;
  testTimeoutMS: number;
}

export interface Status {
  coreOnline: boolean;
  coreInstalled: boolean;
  version: string;
  uptimeSeconds: number;
  nodeCount: number;
  subscriptionCount: number;
  settings: Settings;
  configError: string;
  /** Stable code of `configError` ("" when there is none), e.g. core.port_in_use. */
  configErrorCode?: string;
  /** Port of the core's controller on 127.0.0.1 (--core-controller-port). */
  controllerPort?: number;
  /** Ports of the running core that another program holds: it takes no connections there. */
  listenProblems?: ListenProblem[];
  /** Geodata files a start needs that are neither in the core's home nor shipped with the app. */
  geodataMissing?: string[];
  actualNode: string;
  selectedAvailable: boolean;
  tunActive: boolean;
  coreError?: string;
  /** Stable code of `coreError`: core.unreachable, core.timeout, core.port_in_use, ... */
  coreErrorCode?: string;
  /** The service's last warnings and errors, newest first. */
  recentErrors?: RecentProblem[];
}

export interface ListenProblem {
  code: "core.port_in_use";
  port: number;
  /** As the core names it; "*" for every address. */
  address: string;
  listener: "mixed" | "dns";
  protocol: "tcp" | "udp";
}

export interface RecentProblem {
  /** RFC 3339. */
  time: string;
  level: "warn" | "error";
  /** Names the problem; the console says it in the reader's language. */
  code?: string;
  /** The values its sentence names (with `reason_code`, the error behind it). */
  params?: Record<string, string | number>;
  /** The service's English sentence (its log file's words). */
  message: string;
  requestId: string | null;
}

export interface Usage {
  upload: number;
  download: number;
  total: number;
  expire: number | null;
}

export interface SubscriptionInput {
  name: string;
  url: string;
  enabled: boolean;
  intervalHours: number;
}

export interface Subscription extends SubscriptionInput {
  id: string;
  updatedAt: string | null;
  attemptedAt: string | null;
  lastError: string;
  /** Stable code of `lastError` ("" for none, or for a failure kept from before codes). */
  lastErrorCode?: string;
  /** The values `lastError` mentions (e.g. the status the server answered). */
  lastErrorParams?: Record<string, string | number>;
  usage: Usage | null;
  nodeCount: number;
  refreshing: boolean;
  /** Refreshed on a schedule, but nothing new for more than twice its interval. */
  stale?: boolean;
}

export interface NodeView {
  id: string;
  name: string;
  subscriptionID: string;
  subscriptionName: string;
  type: string;
  udp: boolean;
  delay: number | null;
  alive: boolean | null;
  selected: boolean;
}

export type NodeTestResults = Record<string, { delay: number; error: string }>;

export type RuleType = "DOMAIN" | "DOMAIN-SUFFIX" | "IP-CIDR";
export type RuleAction = "DIRECT" | "PROXY";

export interface RuleInput {
  type: RuleType;
  value: string;
  action: RuleAction;
  enabled: boolean;
}

export interface Rule extends RuleInput {
  id: string;
}

export interface RulesView {
  custom: Rule[];
  defaults: Array<{ match: string; action: string }>;
}

export interface NetworkInfo {
  interfaces: Array<{ name: string; addresses: string[]; up: boolean }>;
  ipForward: boolean;
  tunDevice: boolean;
  rulesInstalled: boolean;
  serviceControl: boolean;
  dhcpManaged: boolean;
  guidance: string;
  /** The steps of `guidance` as codes, so they can be said in the reader's language. */
  guidanceCodes?: string[];
}

export interface Site {
  id: string;
  name: string;
  url: string;
  category: string;
}

export interface SiteResult {
  status: "ok" | "failed" | "timeout";
  detail: string;
  /** Stable code of `detail`. */
  code?: string;
  httpStatus: number;
  durationMS: number;
  tlsVerified: boolean;
  checkedAt: string;
}

export interface UpdateInfo {
  current: string;
  latest: string;
  status: "latest" | "outdated" | null;
  checkedAt: string;
  releaseURL: string;
}

export interface Metrics {
  up: number;
  down: number;
  upTotal: number;
  downTotal: number;
  connections: number;
  coreOnline: boolean;
  time: string;
}

/** One step of a connection's chain as the service names it for people. */
export interface ChainLabel {
  name: string;
  /** The subscription the node comes from; null for groups and built-ins. */
  subscription: string | null;
}

/** One connection as mihomo reports it (passed through by the service). */
export interface Connection {
  id: string;
  metadata: {
    network?: string;
    type?: string;
    sourceIP?: string;
    destinationIP?: string;
    sourcePort?: string;
    destinationPort?: string;
    host?: string;
    process?: string;
    /** The core sends more (inbound, DNS mode, process path…); all of it is shown in details. */
    [key: string]: unknown;
  };
  upload: number;
  download: number;
  start: string;
  /** The core's own names, entry group last; nodes carry an internal prefix. */
  chains: string[];
  /** The same steps named for people (node and subscription name), added by the service. */
  chainLabels?: ChainLabel[];
  rule: string;
  rulePayload: string;
}

export interface ConnectionsView {
  downloadTotal: number;
  uploadTotal: number;
  connections: Connection[] | null;
}

export interface LogItem {
  type: string;
  payload: string;
  /** When the service received the line (RFC 3339). */
  time?: string;
}
