import { z } from "zod";
import type { ProxyAccess } from "./access.js";
import type { ApiContract } from "./route.js";
import {
  AuthStatus,
  LoginBody,
  PasswordBody,
  ProxyHealth,
  SessionOpened,
  SetupBody,
} from "./proxy-auth.js";
import { RuleInput, Settings, SubscriptionInput } from "./proxy-fields.js";
import { ProbationState, Status } from "./proxy-status.js";
import {
  BackupExport,
  BackupFile,
  ConnectionsView,
  ConnectivityResult,
  ConnectivitySites,
  ConnectivityTest,
  CoreInfo,
  CoreInstalled,
  GeodataUpdated,
  LogsQuery,
  NetworkReport,
  NoFields,
  ServiceAction,
  UpdateReport,
} from "./proxy-system.js";
import { DeviceList, DevicePatch, TrafficQuery, TrafficView } from "./proxy-devices.js";
import {
  NodeList,
  NodeSelect,
  NodeTest,
  NodeTestResults,
  Ok,
  RuleOrder,
  RuleSaved,
  RulesView,
  SubscriptionList,
  SubscriptionSaved,
} from "./proxy-views.js";

/** The `:id` of a subscription, rule, connection or device. */
export const IdParam = z.object({ id: z.string() });

const json = <S extends z.ZodType>(description: string, schema: S) => ({
  200: { description, schema },
});
const done = json("Done", Ok);

/**
 * Every route of the proxy service, keyed as its route table registers them. Every route but
 * the five open ones needs a signed-in session, and a state-changing one its CSRF token in
 * `X-CSRF-Token`.
 */
export const PROXY_API = {
  "GET /health": {
    access: "open",
    summary: "Whether the service runs, is set up, and its version",
    description: "Answered without a session: it reveals no data.",
    tag: "Service",
    responses: json("The service runs", ProxyHealth),
  },
  "GET /openapi.json": {
    access: "open",
    summary: "This API document",
    description: "Answered without a session: it describes the routes and reveals no data.",
    tag: "Service",
    responses: { 200: { description: "The OpenAPI 3.1 document", mediaType: "application/json" } },
  },
  "GET /auth/status": {
    access: "open",
    summary: "Whether the service is set up and the caller signed in",
    description: "Answered without a session.",
    tag: "Sign-in",
    responses: json("The state and the session's CSRF token", AuthStatus),
  },
  "POST /auth/setup": {
    access: "open",
    summary: "Set the administrator password with the setup token",
    description: "Answered without a session, once: opens the first session.",
    tag: "Sign-in",
    body: SetupBody,
    responses: json("Set up and signed in", SessionOpened),
  },
  "POST /auth/login": {
    access: "open",
    summary: "Sign in",
    description: "Answered without a session; failed attempts are limited per address (429).",
    tag: "Sign-in",
    body: LoginBody,
    responses: json("Signed in", SessionOpened),
  },
  "POST /auth/logout": { access: "session", summary: "Sign out", tag: "Sign-in", responses: done },
  "PUT /auth/password": {
    access: "session",
    summary: "Change the administrator password",
    description: "Ends every other session; this one gets a new CSRF token.",
    tag: "Sign-in",
    body: PasswordBody,
    responses: json("Changed", SessionOpened),
  },
  "GET /status": {
    access: "session",
    summary: "The core, the counts, the settings and the last problems",
    tag: "Status",
    responses: json("The service's state", Status),
  },
  "GET /subscriptions": {
    access: "session",
    summary: "List the subscriptions",
    tag: "Subscriptions",
    responses: json("Every subscription, in order", SubscriptionList),
  },
  "POST /subscriptions": {
    access: "session",
    summary: "Add a subscription",
    tag: "Subscriptions",
    body: SubscriptionInput,
    responses: json("Added", SubscriptionSaved),
  },
  "PUT /subscriptions/:id": {
    access: "session",
    summary: "Edit a subscription",
    tag: "Subscriptions",
    params: IdParam,
    body: SubscriptionInput,
    responses: json("Saved", SubscriptionSaved),
  },
  "DELETE /subscriptions/:id": {
    access: "session",
    summary: "Delete a subscription and its nodes",
    tag: "Subscriptions",
    params: IdParam,
    responses: done,
  },
  "POST /subscriptions/:id/refresh": {
    access: "session",
    summary: "Fetch a subscription's feed now",
    tag: "Subscriptions",
    params: IdParam,
    responses: done,
  },
  "GET /nodes": {
    access: "session",
    summary: "List the nodes of the enabled subscriptions",
    tag: "Nodes",
    responses: json("Every node, with its last delay", NodeList),
  },
  "POST /nodes/select": {
    access: "session",
    summary: "Choose a node, or let the fastest be used",
    tag: "Nodes",
    body: NodeSelect,
    responses: done,
  },
  "POST /nodes/test": {
    access: "session",
    summary: "Test the delay of some nodes through the running core (503 when none runs)",
    tag: "Nodes",
    body: NodeTest,
    responses: json("The delay of each node, by id", NodeTestResults),
  },
  "GET /rules": {
    access: "session",
    summary: "List the custom rules and the fixed ones around them",
    tag: "Rules",
    responses: json("The rules", RulesView),
  },
  "POST /rules": {
    access: "session",
    summary: "Add a custom rule",
    tag: "Rules",
    body: RuleInput,
    responses: json("Added", RuleSaved),
  },
  "PUT /rules/order": {
    access: "session",
    summary: "Reorder the custom rules",
    tag: "Rules",
    body: RuleOrder,
    responses: done,
  },
  "PUT /rules/:id": {
    access: "session",
    summary: "Edit a custom rule",
    tag: "Rules",
    params: IdParam,
    body: RuleInput,
    responses: json("Saved", RuleSaved),
  },
  "DELETE /rules/:id": {
    access: "session",
    summary: "Delete a custom rule",
    tag: "Rules",
    params: IdParam,
    responses: done,
  },
  "GET /settings": {
    access: "session",
    summary: "Read the settings",
    tag: "Settings",
    responses: json("The settings", Settings),
  },
  "PUT /settings": {
    access: "session",
    summary: "Replace the settings",
    description:
      "Checked against this machine (interfaces, ports in use). A change that can cut the operator off waits for POST /system/confirm.",
    tag: "Settings",
    body: Settings,
    responses: json("The settings as saved", Settings),
  },
  "GET /system/backup": {
    access: "session",
    summary: "Download a backup of the settings, subscriptions and rules",
    tag: "Backup",
    responses: { 200: { description: "The backup file", schema: BackupExport } },
  },
  "POST /system/restore": {
    access: "session",
    summary: "Restore a backup",
    description: "Everything is checked first, then replaced in one change.",
    tag: "Backup",
    body: BackupFile,
    responses: done,
  },
  "GET /system/probation": {
    access: "session",
    summary: "A settings change waiting for confirmation, and the last rollback",
    tag: "Settings",
    responses: json("The state", ProbationState),
  },
  "POST /system/confirm": {
    access: "session",
    summary: "Keep the waiting settings change",
    tag: "Settings",
    responses: done,
  },
  "POST /system/probation/revert": {
    access: "session",
    summary: "Undo the waiting settings change now",
    tag: "Settings",
    responses: done,
  },
  "POST /system/probation/dismiss": {
    access: "session",
    summary: "Dismiss the notice of a rollback",
    tag: "Settings",
    responses: done,
  },
  "GET /system/core": {
    access: "session",
    summary: "Which core runs, where it comes from, and an install in progress",
    tag: "Core",
    responses: json("The core's facts", CoreInfo),
  },
  "POST /system/core/install": {
    access: "session",
    summary: "Install the latest core release",
    tag: "Core",
    body: NoFields.optional(),
    responses: json("Installed", CoreInstalled),
  },
  "POST /system/core/rollback": {
    access: "session",
    summary: "Go back to the core that ran before the last install",
    tag: "Core",
    body: NoFields.optional(),
    responses: json("Rolled back", CoreInstalled),
  },
  "POST /system/geodata/update": {
    access: "session",
    summary: "Fetch, check and swap in the core's geodata",
    tag: "Core",
    body: NoFields,
    responses: json("Updated", GeodataUpdated),
  },
  "POST /system/service": {
    access: "session",
    summary: "Start, stop or restart the core",
    tag: "Core",
    body: ServiceAction,
    responses: done,
  },
  "GET /system/network": {
    access: "session",
    summary: "This machine's interfaces and what gateway mode still needs",
    tag: "System",
    responses: json("The report", NetworkReport),
  },
  "GET /system/updates": {
    access: "session",
    summary: "Compare the core with its latest release",
    tag: "Core",
    responses: json("The versions", UpdateReport),
  },
  "GET /system/connectivity": {
    access: "session",
    summary: "The sites a connectivity test can try",
    tag: "System",
    responses: json("The sites", ConnectivitySites),
  },
  "POST /system/connectivity/test": {
    access: "session",
    summary: "Open one site through the proxy",
    tag: "System",
    body: ConnectivityTest,
    responses: json("What happened", ConnectivityResult),
  },
  "GET /connections": {
    access: "session",
    summary: "The core's open connections",
    tag: "Connections",
    responses: json("The connections and the totals", ConnectionsView),
  },
  "DELETE /connections/:id": {
    access: "session",
    summary: "Close one connection",
    tag: "Connections",
    params: IdParam,
    responses: done,
  },
  "DELETE /connections": {
    access: "session",
    summary: "Close every connection",
    tag: "Connections",
    responses: done,
  },
  "GET /devices": {
    access: "session",
    summary: "The LAN devices that use the gateway, most recently seen first",
    description:
      "Found from the core's connections, named from the DHCP leases; each with today's traffic.",
    tag: "Devices",
    responses: json("Every device", DeviceList),
  },
  "PUT /devices/:id": {
    access: "session",
    summary: "Rename a device, or set what it may do",
    description:
      "A policy other than default is compiled into the core's rules for the device's addresses. An unknown id is a 400.",
    tag: "Devices",
    params: IdParam,
    body: DevicePatch,
    responses: done,
  },
  "DELETE /devices/:id": {
    access: "session",
    summary: "Forget a device and its traffic history",
    description: "A device still in use is found again, as a new one. An unknown id is a 400.",
    tag: "Devices",
    params: IdParam,
    responses: done,
  },
  "GET /traffic": {
    access: "session",
    summary: "What the devices moved: per hour over 24 hours, per day over 7 or 30 days",
    description:
      "Every device together with the ten busiest, or one device (`device`, an unknown id is a 400).",
    tag: "Devices",
    query: TrafficQuery,
    responses: json("The chart's buckets, oldest first", TrafficView),
  },
  "GET /events": {
    access: "session",
    summary: "Traffic figures every two seconds",
    description: "Server-sent events: `metrics` (Metrics), and `expired` when the session ends.",
    tag: "Live",
    responses: { 200: { description: "An event stream", mediaType: "text/event-stream" } },
  },
  "GET /logs": {
    access: "session",
    summary: "The core's log",
    description:
      "Server-sent events: `log` (LogItem), `heartbeat`, `expired`, and `disconnected` (why it ended). Last-Event-ID resumes.",
    tag: "Live",
    query: LogsQuery,
    responses: { 200: { description: "An event stream", mediaType: "text/event-stream" } },
  },
} as const satisfies ApiContract<ProxyAccess>;

/** A route of the proxy service, as its route table and its pages name it. */
export type ProxyRouteKey = keyof typeof PROXY_API;
