import { z } from "zod";
import type { ProxyAccess } from "./access.js";
import type { ApiContract } from "./route.js";
import {
  AuthStatusSchema,
  LoginBodySchema,
  PasswordBodySchema,
  ProxyHealthSchema,
  SessionOpenedSchema,
  SetupBodySchema,
} from "./proxy-auth.js";
import { RuleInputSchema, SettingsSchema, SubscriptionInputSchema } from "./proxy-fields.js";
import { ProbationStateSchema, StatusSchema } from "./proxy-status.js";
import {
  BackupExportSchema,
  BackupFileSchema,
  ConnectionsViewSchema,
  ConnectivityResultSchema,
  ConnectivitySitesSchema,
  ConnectivityTestSchema,
  CoreInfoSchema,
  CoreInstalledSchema,
  GeodataUpdatedSchema,
  LogsQuerySchema,
  NetworkReportSchema,
  NoFieldsSchema,
  ServiceActionSchema,
  UpdateReportSchema,
} from "./proxy-system.js";
import {
  DeviceListSchema,
  DevicePatchSchema,
  TrafficQuerySchema,
  TrafficViewSchema,
} from "./proxy-devices.js";
import {
  NodeListSchema,
  NodeSelectSchema,
  NodeTestSchema,
  NodeTestResultsSchema,
  OkSchema,
  RuleOrderSchema,
  RuleSavedSchema,
  RulesViewSchema,
  SubscriptionListSchema,
  SubscriptionSavedSchema,
} from "./proxy-views.js";

/** The `:id` of a subscription, rule, connection or device. */
export const IdParamSchema = z.object({ id: z.string() });

const json = <S extends z.ZodType>(description: string, schema: S) => ({
  200: { description, schema },
});
const done = json("Done", OkSchema);

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
    responses: json("The service runs", ProxyHealthSchema),
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
    responses: json("The state and the session's CSRF token", AuthStatusSchema),
  },
  "POST /auth/setup": {
    access: "open",
    summary: "Set the administrator password with the setup token",
    description: "Answered without a session, once: opens the first session.",
    tag: "Sign-in",
    body: SetupBodySchema,
    responses: json("Set up and signed in", SessionOpenedSchema),
  },
  "POST /auth/login": {
    access: "open",
    summary: "Sign in",
    description: "Answered without a session; failed attempts are limited per address (429).",
    tag: "Sign-in",
    body: LoginBodySchema,
    responses: json("Signed in", SessionOpenedSchema),
  },
  "POST /auth/logout": { access: "session", summary: "Sign out", tag: "Sign-in", responses: done },
  "PUT /auth/password": {
    access: "session",
    summary: "Change the administrator password",
    description: "Ends every other session; this one gets a new CSRF token.",
    tag: "Sign-in",
    body: PasswordBodySchema,
    responses: json("Changed", SessionOpenedSchema),
  },
  "GET /status": {
    access: "session",
    summary: "The core, the counts, the settings and the last problems",
    tag: "Status",
    responses: json("The service's state", StatusSchema),
  },
  "GET /subscriptions": {
    access: "session",
    summary: "List the subscriptions",
    tag: "Subscriptions",
    responses: json("Every subscription, in order", SubscriptionListSchema),
  },
  "POST /subscriptions": {
    access: "session",
    summary: "Add a subscription",
    tag: "Subscriptions",
    body: SubscriptionInputSchema,
    responses: json("Added", SubscriptionSavedSchema),
  },
  "PUT /subscriptions/:id": {
    access: "session",
    summary: "Edit a subscription",
    tag: "Subscriptions",
    params: IdParamSchema,
    body: SubscriptionInputSchema,
    responses: json("Saved", SubscriptionSavedSchema),
  },
  "DELETE /subscriptions/:id": {
    access: "session",
    summary: "Delete a subscription and its nodes",
    tag: "Subscriptions",
    params: IdParamSchema,
    responses: done,
  },
  "POST /subscriptions/:id/refresh": {
    access: "session",
    summary: "Fetch a subscription's feed now",
    tag: "Subscriptions",
    params: IdParamSchema,
    responses: done,
  },
  "GET /nodes": {
    access: "session",
    summary: "List the nodes of the enabled subscriptions",
    tag: "Nodes",
    responses: json("Every node, with its last delay", NodeListSchema),
  },
  "POST /nodes/select": {
    access: "session",
    summary: "Choose a node, or let the fastest be used",
    tag: "Nodes",
    body: NodeSelectSchema,
    responses: done,
  },
  "POST /nodes/test": {
    access: "session",
    summary: "Test the delay of some nodes through the running core (503 when none runs)",
    tag: "Nodes",
    body: NodeTestSchema,
    responses: json("The delay of each node, by id", NodeTestResultsSchema),
  },
  "GET /rules": {
    access: "session",
    summary: "List the custom rules and the fixed ones around them",
    tag: "Rules",
    responses: json("The rules", RulesViewSchema),
  },
  "POST /rules": {
    access: "session",
    summary: "Add a custom rule",
    tag: "Rules",
    body: RuleInputSchema,
    responses: json("Added", RuleSavedSchema),
  },
  "PUT /rules/order": {
    access: "session",
    summary: "Reorder the custom rules",
    tag: "Rules",
    body: RuleOrderSchema,
    responses: done,
  },
  "PUT /rules/:id": {
    access: "session",
    summary: "Edit a custom rule",
    tag: "Rules",
    params: IdParamSchema,
    body: RuleInputSchema,
    responses: json("Saved", RuleSavedSchema),
  },
  "DELETE /rules/:id": {
    access: "session",
    summary: "Delete a custom rule",
    tag: "Rules",
    params: IdParamSchema,
    responses: done,
  },
  "GET /settings": {
    access: "session",
    summary: "Read the settings",
    tag: "Settings",
    responses: json("The settings", SettingsSchema),
  },
  "PUT /settings": {
    access: "session",
    summary: "Replace the settings",
    description:
      "Checked against this machine (interfaces, ports in use). A change that can cut the operator off waits for POST /system/confirm.",
    tag: "Settings",
    body: SettingsSchema,
    responses: json("The settings as saved", SettingsSchema),
  },
  "GET /system/backup": {
    access: "session",
    summary: "Download a backup of the settings, subscriptions and rules",
    tag: "Backup",
    responses: { 200: { description: "The backup file", schema: BackupExportSchema } },
  },
  "POST /system/restore": {
    access: "session",
    summary: "Restore a backup",
    description: "Everything is checked first, then replaced in one change.",
    tag: "Backup",
    body: BackupFileSchema,
    responses: done,
  },
  "GET /system/probation": {
    access: "session",
    summary: "A settings change waiting for confirmation, and the last rollback",
    tag: "Settings",
    responses: json("The state", ProbationStateSchema),
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
    responses: json("The core's facts", CoreInfoSchema),
  },
  "POST /system/core/install": {
    access: "session",
    summary: "Install the latest core release",
    tag: "Core",
    body: NoFieldsSchema.optional(),
    responses: json("Installed", CoreInstalledSchema),
  },
  "POST /system/core/rollback": {
    access: "session",
    summary: "Go back to the core that ran before the last install",
    tag: "Core",
    body: NoFieldsSchema.optional(),
    responses: json("Rolled back", CoreInstalledSchema),
  },
  "POST /system/geodata/update": {
    access: "session",
    summary: "Fetch, check and swap in the core's geodata",
    tag: "Core",
    body: NoFieldsSchema,
    responses: json("Updated", GeodataUpdatedSchema),
  },
  "POST /system/service": {
    access: "session",
    summary: "Start, stop or restart the core",
    tag: "Core",
    body: ServiceActionSchema,
    responses: done,
  },
  "GET /system/network": {
    access: "session",
    summary: "This machine's interfaces and what gateway mode still needs",
    tag: "System",
    responses: json("The report", NetworkReportSchema),
  },
  "GET /system/updates": {
    access: "session",
    summary: "Compare the core with its latest release",
    tag: "Core",
    responses: json("The versions", UpdateReportSchema),
  },
  "GET /system/connectivity": {
    access: "session",
    summary: "The sites a connectivity test can try",
    tag: "System",
    responses: json("The sites", ConnectivitySitesSchema),
  },
  "POST /system/connectivity/test": {
    access: "session",
    summary: "Open one site through the proxy",
    tag: "System",
    body: ConnectivityTestSchema,
    responses: json("What happened", ConnectivityResultSchema),
  },
  "GET /connections": {
    access: "session",
    summary: "The core's open connections",
    tag: "Connections",
    responses: json("The connections and the totals", ConnectionsViewSchema),
  },
  "DELETE /connections/:id": {
    access: "session",
    summary: "Close one connection",
    tag: "Connections",
    params: IdParamSchema,
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
    responses: json("Every device", DeviceListSchema),
  },
  "PUT /devices/:id": {
    access: "session",
    summary: "Rename a device, or set what it may do",
    description:
      "A policy other than default is compiled into the core's rules for the device's addresses. An unknown id is a 400.",
    tag: "Devices",
    params: IdParamSchema,
    body: DevicePatchSchema,
    responses: done,
  },
  "DELETE /devices/:id": {
    access: "session",
    summary: "Forget a device and its traffic history",
    description: "A device still in use is found again, as a new one. An unknown id is a 400.",
    tag: "Devices",
    params: IdParamSchema,
    responses: done,
  },
  "GET /traffic": {
    access: "session",
    summary: "What the devices moved: per hour over 24 hours, per day over 7 or 30 days",
    description:
      "Every device together with the ten busiest, or one device (`device`, an unknown id is a 400).",
    tag: "Devices",
    query: TrafficQuerySchema,
    responses: json("The chart's buckets, oldest first", TrafficViewSchema),
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
    query: LogsQuerySchema,
    responses: { 200: { description: "An event stream", mediaType: "text/event-stream" } },
  },
} as const satisfies ApiContract<ProxyAccess>;

/** A route of the proxy service, as its route table and its pages name it. */
export type ProxyRouteKey = keyof typeof PROXY_API;
