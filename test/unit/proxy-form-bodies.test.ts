import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import {
  NodeSelectSchema,
  RuleInputSchema,
  SettingsSchema,
  SubscriptionInputSchema,
  type Rule,
  type Subscription,
} from "../../server/contract/proxy.js";
import { api } from "../../renderer/proxy/api.js";
import { ruleInputOf } from "../../renderer/proxy/rules/rule-body.js";
import { fromDraft, toDraft } from "../../renderer/proxy/settings/settings-check.js";
import { DEFAULT_SETTINGS } from "../../server/proxy/types.js";

// The console sends every request body through api(key, { body }): a member the route's schema
// does not name fails to compile (the `@ts-expect-error` lines below prove it under `tsc`; the
// calls sit in functions that never run, so no request is made), and the runtime checks show
// the route would refuse the same body.

const stored: Rule = {
  id: "0123456789abcdef01234567",
  type: "DOMAIN-SUFFIX",
  value: "example.com",
  action: "DIRECT",
  enabled: true,
};

describe("rule bodies", () => {
  it("refuses a stored rule sent back (its id), at compile time and in the route's schema", () => {
    const never = () =>
      // @ts-expect-error a stored rule carries `id`, which PUT /rules/:id does not take
      api("PUT /rules/:id", { params: { id: stored.id }, body: stored });
    expect(typeof never).toBe("function");
    const refused = RuleInputSchema.safeParse(stored);
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({ code: "unrecognized_keys", keys: ["id"] });
  });

  it("takes the rule form's body: exactly the rule's fields, which the schema accepts", () => {
    const body = ruleInputOf({ ...stored, enabled: false });
    const typed = () => api("PUT /rules/:id", { params: { id: stored.id }, body });
    expect(typeof typed).toBe("function");
    expect(body).toEqual({
      type: "DOMAIN-SUFFIX",
      value: "example.com",
      action: "DIRECT",
      enabled: false,
    });
    expect(RuleInputSchema.parse(body)).toEqual(body);
    expectTypeOf(body).toMatchTypeOf<z.input<typeof RuleInputSchema>>();
  });
});

describe("other form bodies", () => {
  it("refuses a listed subscription sent back as an edit", () => {
    const listed: Subscription = {
      id: "0123456789abcdef01234567",
      name: "Home",
      url: "https://feeds.example/a",
      enabled: true,
      intervalHours: 24,
      updatedAt: null,
      attemptedAt: null,
      lastError: "",
      lastErrorCode: "",
      lastErrorParams: {},
      usage: null,
      nodeCount: 0,
      refreshing: false,
      stale: false,
    };
    const never = () =>
      // @ts-expect-error the listed subscription carries members PUT /subscriptions/:id refuses
      api("PUT /subscriptions/:id", { params: { id: listed.id }, body: listed });
    expect(typeof never).toBe("function");
    expect(SubscriptionInputSchema.safeParse(listed).success).toBe(false);
    const { name, url, enabled, intervalHours } = listed;
    const body = { name, url, enabled, intervalHours };
    const typed = () => api("PUT /subscriptions/:id", { params: { id: listed.id }, body });
    expect(typeof typed).toBe("function");
    expect(SubscriptionInputSchema.parse(body)).toEqual(body);
  });

  it("knows each case of a choice: a manual selection names its node, auto names none", () => {
    expect(NodeSelectSchema.parse({ mode: "manual", id: "a/sub-a/x" })).toEqual({
      mode: "manual",
      id: "a/sub-a/x",
    });
    const never = () => {
      void api("POST /nodes/select", { body: { mode: "manual", id: "a/sub-a/x" } });
      // @ts-expect-error a member neither case of the choice names
      void api("POST /nodes/select", { body: { mode: "auto", node: "x" } });
    };
    expect(typeof never).toBe("function");
  });

  it("sends back the settings form's values in the shape PUT /settings takes", () => {
    const body = fromDraft(toDraft(DEFAULT_SETTINGS));
    expect(SettingsSchema.parse(body)).toEqual(DEFAULT_SETTINGS);
    const never = () => {
      void api("PUT /settings", { body });
      // @ts-expect-error a settings body with a member the service does not know
      void api("PUT /settings", { body: { ...DEFAULT_SETTINGS, lanMask: "255.255.255.0" } });
    };
    expect(typeof never).toBe("function");
  });
});
