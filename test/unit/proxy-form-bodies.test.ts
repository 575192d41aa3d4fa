import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import {
  NodeSelect,
  RuleInput,
  Settings,
  SubscriptionInput,
  type Rule,
  type Subscription,
} from "../../server/contract/proxy.js";
import { bodyOf } from "../../renderer/proxy/api.js";
import { ruleInputOf } from "../../renderer/proxy/screens/rule-body.js";
import { fromDraft, toDraft } from "../../renderer/proxy/screens/settings-check.js";
import { DEFAULT_SETTINGS } from "../../server/proxy/types.js";

// The console builds every request body through bodyOf(schema, body): a member the route's
// schema does not name fails to compile (the `@ts-expect-error` lines below prove it under
// `tsc`), and the runtime checks show the route would refuse the same body.

const stored: Rule = {
  id: "0123456789abcdef01234567",
  type: "DOMAIN-SUFFIX",
  value: "example.com",
  action: "DIRECT",
  enabled: true,
};

describe("rule bodies", () => {
  it("refuses a stored rule sent back (its id), at compile time and in the route's schema", () => {
    // @ts-expect-error a stored rule carries `id`, which PUT /rules/:id does not take
    bodyOf(RuleInput, stored);
    const refused = RuleInput.safeParse(stored);
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({ code: "unrecognized_keys", keys: ["id"] });
  });

  it("takes the rule form's body: exactly the rule's fields, which the schema accepts", () => {
    const body = bodyOf(RuleInput, ruleInputOf({ ...stored, enabled: false }));
    expect(body).toEqual({
      type: "DOMAIN-SUFFIX",
      value: "example.com",
      action: "DIRECT",
      enabled: false,
    });
    expect(RuleInput.parse(body)).toEqual(body);
    expectTypeOf(body).toEqualTypeOf<z.input<typeof RuleInput>>();
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
    // @ts-expect-error the listed subscription carries members PUT /subscriptions/:id refuses
    bodyOf(SubscriptionInput, listed);
    expect(SubscriptionInput.safeParse(listed).success).toBe(false);
    const { name, url, enabled, intervalHours } = listed;
    expect(
      SubscriptionInput.parse(bodyOf(SubscriptionInput, { name, url, enabled, intervalHours })),
    ).toEqual({ name, url, enabled, intervalHours });
  });

  it("knows each case of a choice: a manual selection names its node, auto names none", () => {
    expect(NodeSelect.parse(bodyOf(NodeSelect, { mode: "manual", id: "a/sub-a/x" }))).toEqual({
      mode: "manual",
      id: "a/sub-a/x",
    });
    // @ts-expect-error a member neither case of the choice names
    bodyOf(NodeSelect, { mode: "auto", node: "x" });
  });

  it("sends back the settings form's values in the shape PUT /settings takes", () => {
    const body = bodyOf(Settings, fromDraft(toDraft(DEFAULT_SETTINGS)));
    expect(Settings.parse(body)).toEqual(DEFAULT_SETTINGS);
    // @ts-expect-error a settings body with a member the service does not know
    bodyOf(Settings, { ...DEFAULT_SETTINGS, lanMask: "255.255.255.0" });
  });
});
