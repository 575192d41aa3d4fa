import { z } from "zod";
import { RuleSchema, SubscriptionInputSchema } from "./proxy-fields.js";

/** Answers of the list and edit routes: subscriptions, nodes and rules. */

/** A change that only succeeded. */
export const OkSchema = z.object({ ok: z.literal(true) });
export type Ok = z.output<typeof OkSchema>;

/** Values a sentence names, beside its stable code. */
export const ParamsSchema = z.record(z.string(), z.union([z.string(), z.number()]));

export const SubscriptionUsageSchema = z.object({
  upload: z.number(),
  download: z.number(),
  total: z.number(),
  /** Unix seconds, or null when the feed gave none. */
  expire: z.number().nullable(),
});
export type SubscriptionUsage = z.output<typeof SubscriptionUsageSchema>;

/** A subscription as it is stored. */
export const SubscriptionRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  enabled: z.boolean(),
  intervalHours: z.number(),
  /** RFC 3339 UTC with milliseconds. */
  updatedAt: z.string().nullable(),
  attemptedAt: z.string().nullable(),
  lastError: z.string(),
  /** Stable code of `lastError` ("" when there is none, or for a failure kept from before codes). */
  lastErrorCode: z.string(),
  /** The values `lastError` mentions (e.g. the status the server answered). */
  lastErrorParams: ParamsSchema,
  usage: SubscriptionUsageSchema.nullable(),
  nodeCount: z.number(),
  /** When it was added (absent or null when not known, e.g. restored from a backup). */
  createdAt: z.string().nullable().optional(),
});
export type SubscriptionRecord = z.output<typeof SubscriptionRecordSchema>;

/** One entry of `GET /subscriptions`. */
export const SubscriptionSchema = SubscriptionRecordSchema.extend({
  refreshing: z.boolean(),
  /** Refreshed on a schedule, but nothing new for more than twice its interval. */
  stale: z.boolean(),
});
export type Subscription = z.output<typeof SubscriptionSchema>;
export const SubscriptionListSchema = z.array(SubscriptionSchema);

/** Answer of creating or editing a subscription. */
export const SubscriptionSavedSchema = z.object({ id: z.string(), ok: z.literal(true) });
export type SubscriptionSaved = z.output<typeof SubscriptionSavedSchema>;

/** The editable part of a subscription as a form holds it. */
export type SubscriptionFields = z.input<typeof SubscriptionInputSchema>;

export const RuleSavedSchema = z.object({ id: z.string() });
export type RuleSaved = z.output<typeof RuleSavedSchema>;

/** Body of `PUT /rules/order`: every rule id, in the new order. */
export const RuleOrderSchema = z.strictObject({
  ids: z.array(z.string("must be a string"), "must be an array of rule ids").max(10_000),
});

/** `GET /rules`: the custom rules in order, and the fixed ones around them. */
export const RulesViewSchema = z.object({
  custom: z.array(RuleSchema),
  defaults: z.array(z.object({ match: z.string(), action: z.string() })),
});
export type RulesView = z.output<typeof RulesViewSchema>;

/** One node of an enabled subscription, with what the core last measured of it. */
export const NodeViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  subscriptionID: z.string(),
  subscriptionName: z.string(),
  type: z.string(),
  udp: z.boolean(),
  /** Milliseconds of the last test; 0 when it failed, null when none is known. */
  delay: z.number().nullable(),
  alive: z.boolean().nullable(),
  selected: z.boolean(),
});
export type NodeView = z.output<typeof NodeViewSchema>;
export const NodeListSchema = z.array(NodeViewSchema);

/** Body of `POST /nodes/select`. */
export const NodeSelectSchema = z.discriminatedUnion(
  "mode",
  [
    z.object({ mode: z.literal("auto") }),
    z.object({ mode: z.literal("manual"), id: z.string("must be a node id") }),
  ],
  "mode must be manual or auto",
);

/** Body of `POST /nodes/test`. */
export const NodeTestSchema = z.object({
  ids: z
    .array(z.string("must be a node id"), "must be an array of node ids")
    .min(1, "must name at least one node")
    .max(500, "must name at most 500 nodes"),
});

/** Answer of `POST /nodes/test`, by node id: the delay in ms, or 0 and why it failed. */
export const NodeTestResultsSchema = z.record(
  z.string(),
  z.object({ delay: z.number(), error: z.string() }),
);
export type NodeTestResults = z.output<typeof NodeTestResultsSchema>;
