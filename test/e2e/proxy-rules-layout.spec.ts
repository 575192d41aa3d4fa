import { expect, test, type Locator, type Page } from "@playwright/test";
import { startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import {
  callInPage as call,
  DESKTOP,
  PHONE,
  setLang,
  setUp,
  shootEverywhere,
  signIn,
} from "./support/proxy-page.js";

/**
 * The Rules screen as a careful new user reads it: every choice of the form readable in full,
 * rules laid out alike whatever their length, "Your rules" not passed off as built-in, a
 * delete that asks first, and no old "Rule saved" beside a new refusal.
 */

let svc: ProxyConsole;
test.beforeAll(async () => {
  svc = await startProxyConsole();
  await setUp(svc);
});
test.afterAll(async () => {
  await svc?.close();
});
test.describe.configure({ mode: "serial" });

interface Rule {
  id: string;
  value: string;
}

async function resetRules(page: Page, values: Array<[string, string, string]>): Promise<void> {
  const now = await call<{ custom: Rule[] }>(page, "GET", "/rules");
  for (const r of now.json.custom) await call(page, "DELETE", `/rules/${r.id}`);
  for (const [type, value, action] of values)
    expect(
      (await call(page, "POST", "/rules", { type, value, action, enabled: true })).status,
    ).toBe(200);
}

/** Options of each select in `form` whose words do not fit the select's box. */
async function cutOptions(form: Locator): Promise<string[]> {
  return form.locator("select").evaluateAll((selects) => {
    const cut: string[] = [];
    for (const el of selects as HTMLSelectElement[]) {
      const style = getComputedStyle(el);
      const probe = document.createElement("span");
      probe.style.font = style.font;
      probe.style.whiteSpace = "pre";
      probe.style.position = "absolute";
      document.body.append(probe);
      // Room for the text: the box less its padding, borders and the arrow (about 1.25em).
      const room =
        el.getBoundingClientRect().width -
        parseFloat(style.paddingLeft) -
        parseFloat(style.paddingRight) -
        parseFloat(style.borderLeftWidth) -
        parseFloat(style.borderRightWidth) -
        1.25 * parseFloat(style.fontSize);
      for (const option of Array.from(el.options)) {
        probe.textContent = option.text;
        if (probe.getBoundingClientRect().width > room) cut.push(option.text);
      }
      probe.remove();
    }
    return cut;
  });
}

/** Each rule's height and where its parts sit inside it. */
async function ruleShapes(page: Page): Promise<Array<Record<string, number>>> {
  return page.locator("ol.rules > li.rule").evaluateAll((rows) =>
    rows.map((row) => {
      const box = row.getBoundingClientRect();
      const part = (sel: string) => row.querySelector(sel)?.getBoundingClientRect() ?? box;
      const buttons = part(".rule-buttons");
      const state = part(".rule-state");
      const what = part(".rule-what");
      return {
        height: Math.round(box.height),
        buttonsLeft: Math.round(buttons.left - box.left),
        buttonsFromBottom: Math.round(box.bottom - buttons.bottom),
        stateRight: Math.round(box.right - state.right),
        whatLeft: Math.round(what.left - box.left),
      };
    }),
  );
}

/** The parts of every rule in the same places (and, when `sameHeight`, one height). */
function alike(shapes: Array<Record<string, number>>, sameHeight: boolean): void {
  const keys = ["buttonsLeft", "buttonsFromBottom", "stateRight", "whatLeft"];
  if (sameHeight) keys.push("height");
  for (const key of keys)
    expect(new Set(shapes.map((s) => s[key])).size, `${key}: ${JSON.stringify(shapes)}`).toBe(1);
}

const RULES: Array<[string, string, string]> = [
  ["DOMAIN", "a.io", "PROXY"],
  ["DOMAIN-SUFFIX", "downloads.some-long-company-name.example.com", "DIRECT"],
  ["IP-CIDR", "10.0.0.0/8", "DIRECT"],
];

for (const [label, size] of [
  ["laptop", DESKTOP],
  ["phone", PHONE],
] as const) {
  test(`the form's choices are readable in full and rules are laid out alike (${label})`, async ({
    page,
  }) => {
    await page.setViewportSize(size);
    await signIn(page, svc, "#/rules");
    await resetRules(page, RULES);
    await page.reload();
    await expect(page.locator("ol.rules > li.rule")).toHaveCount(3);
    for (const lang of ["en", "zh-CN"] as const) {
      await setLang(page, lang);
      const form = page.locator("form.rule-form").first();
      expect(await cutOptions(form)).toEqual([]);
      // The same parts in the same places; on a laptop every value fits one line, so one height.
      alike(await ruleShapes(page), label === "laptop");
      // An edit form opened in a rule reads in full too.
      await page
        .locator("ol.rules > li.rule")
        .nth(1)
        .locator(".rule-buttons button")
        .nth(2)
        .click();
      expect(await cutOptions(page.locator("ol.rules form.rule-form"))).toEqual([]);
      await page
        .locator("ol.rules form.rule-form")
        .getByRole("button", { name: /^(Cancel|取消)$/ })
        .click();
    }
    await setLang(page, "en");
  });
}

test("your own rules are not tagged built-in; the built-in ones are", async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/rules");
  const order = page.getByRole("region", { name: /^(Rule order|规则顺序)$/ });
  await expect(order.locator(".custom-block")).toBeVisible();
  await expect(order.locator(".custom-block")).not.toContainText("Built-in");
  await expect(order.getByText("Built-in", { exact: true })).toHaveCount(3);
  await expect(order.locator(".custom-block")).toContainText("Your rules, in this order:");
  await setLang(page, "zh-CN");
  await expect(order.locator(".custom-block")).not.toContainText("内置");
  await setLang(page, "en");
});

test("a rule is deleted only after a second, explicit click; Cancel keeps it", async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/rules");
  await resetRules(page, RULES);
  await page.reload();
  const row = page.getByRole("listitem", { name: "DOMAIN a.io" });
  await row.getByRole("button", { name: "Delete DOMAIN a.io" }).click();
  // Nothing is gone yet: the row asks.
  expect((await call<{ custom: Rule[] }>(page, "GET", "/rules")).json.custom).toHaveLength(3);
  const really = row.getByRole("button", { name: "Really delete DOMAIN a.io" });
  await expect(really).toBeVisible();
  await expect(really).toHaveText("Really delete");
  await shootEverywhere(page, "rules-delete-ask", {
    before: async () => {
      if (!(await page.locator(".rule-confirm").count()))
        await page
          .locator("ol.rules > li.rule")
          .first()
          .locator(".rule-buttons button")
          .last()
          .click();
    },
  });
  await row.getByRole("button", { name: "Cancel" }).click();
  await expect(really).toHaveCount(0);
  expect((await call<{ custom: Rule[] }>(page, "GET", "/rules")).json.custom).toHaveLength(3);
  await row.getByRole("button", { name: "Delete DOMAIN a.io" }).click();
  await really.click();
  await expect(
    page.getByText("Rule deleted: a.io (this exact domain) → through the proxy."),
  ).toBeVisible();
  await expect(row).toHaveCount(0);
  const left = (await call<{ custom: Rule[] }>(page, "GET", "/rules")).json.custom;
  expect(left.map((r) => r.value)).toEqual([RULES[1][1], RULES[2][1]]);
});

test("an earlier 'Rule saved' is gone once a new change is refused", async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  await signIn(page, svc, "#/rules");
  await resetRules(page, [
    ["DOMAIN", "one.example", "DIRECT"],
    ["DOMAIN", "two.example", "DIRECT"],
  ]);
  await page.reload();
  const first = page.getByRole("listitem", { name: "DOMAIN one.example" });
  await first.getByRole("button", { name: "Edit DOMAIN one.example" }).click();
  await first.getByRole("form", { name: "Save" }).getByLabel("Route").selectOption("PROXY");
  await first.getByRole("button", { name: "Save" }).click();
  const saved = page.getByText("Rule saved: one.example (this exact domain) → through the proxy.");
  await expect(saved).toBeVisible();

  // The second rule edited into the first: refused in its form, the old notice gone.
  const second = page.getByRole("listitem", { name: "DOMAIN two.example" });
  await second.getByRole("button", { name: "Edit DOMAIN two.example" }).click();
  const edit = second.getByRole("form", { name: "Save" });
  await edit.getByLabel("Domain or address range").fill("one.example");
  await edit.getByLabel("Route").selectOption("PROXY");
  await edit.getByRole("button", { name: "Save" }).click();
  await expect(edit.getByText(/Rule 1 in the list is already/)).toBeVisible();
  await expect(saved).toHaveCount(0);
  await edit.getByRole("button", { name: "Cancel" }).click();

  // The same from the add form.
  const add = page.getByRole("form", { name: "Add rule" });
  await first.getByRole("button", { name: "Edit DOMAIN one.example" }).click();
  await first.getByRole("form", { name: "Save" }).getByRole("button", { name: "Save" }).click();
  await expect(saved).toBeVisible();
  await add.getByLabel("Type").selectOption("DOMAIN");
  await add.getByLabel("Domain or address range").fill("one.example");
  await add.getByLabel("Route").selectOption("PROXY");
  await add.getByRole("button", { name: "Add rule" }).click();
  await expect(add.getByText(/Rule 1 in the list is already/)).toBeVisible();
  await expect(saved).toHaveCount(0);
  await shootEverywhere(page, "rules-refused", { fullPage: true });
});
