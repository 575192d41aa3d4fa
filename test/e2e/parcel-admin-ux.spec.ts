import { expect, test, type Page } from "@playwright/test";
import { CookieJar } from "../helpers/parcel-harness.js";
import { createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { openParcelPage, signInAdmin } from "./support/parcel-page.js";
import { shootThemes, saveShot } from "./support/shots.js";

/**
 * The parcel console as a careful new administrator meets it: a reissued code that is then
 * deleted does not stay on screen as if it worked, a reissue says before it happens what it
 * changes, ended parcels show neither an expiry nor "10 of 10", and a wrong password leaves
 * the form as it was.
 */

let site: ParcelSite;

test.beforeAll(async () => {
  site = await startParcelSite();
  // Every run locks a parcel with wrong passwords from this one address: let them all count.
  const ctx = site.harness.service.ctx;
  ctx.setPolicy({ ...ctx.policy(), pickup_failures_per_ip: 100000 });
});

test.afterAll(async () => {
  await site?.close();
});

const L = {
  en: {
    username: "Username",
    password: "Password",
    signIn: "Sign in",
    heading: "Parcel administration",
    parcels: "Parcels",
    state: "State",
    anyState: "All states",
    locked: "Locked (too many wrong passwords)",
    reissue: "Reissue",
    delete: "Delete",
    files: "Files",
  },
  "zh-CN": {
    username: "用户名",
    password: "密码",
    signIn: "登录",
    heading: "包裹管理",
    parcels: "包裹",
    state: "状态",
    anyState: "全部状态",
    locked: "已锁定（密码错误次数过多）",
    reissue: "重新签发",
    delete: "删除",
    files: "文件",
  },
} as const;

/** A published parcel of 3 downloads and 2 days, locked by wrong passwords; its id. */
async function lockedParcel(name: string): Promise<string> {
  const h = site.harness;
  const up = await createUpload(h, { [name]: 2048 }, { password: "right", downloads: 3, days: 2 });
  const r = await uploadAndPublish(h, up);
  expect(r.status).toBe(200);
  const attempts = h.service.ctx.policy().password_attempts;
  for (let i = 0; i < attempts; i++) {
    const wrong = await h.request("POST", "/pickup/resolve", {
      body: { code: r.json.code, password: `wrong ${i}` },
      jar: new CookieJar(),
    });
    expect(wrong.status).toBe(401);
  }
  return up.id;
}

const REISSUE = {
  en: {
    confirm:
      /^Reissue the parcel “(.+)”\? It gets a new pickup code \(the current one stops working\) and starts again with the current defaults: 10 downloads and 7 days from now\. Until now it allowed 3 downloads over 2 days\.$/,
    withdrawn: "This code no longer works: the parcel was deleted.",
    fileEnded: "removed with the parcel",
    noExpiry: "ended",
  },
  "zh-CN": {
    confirm:
      /^重新签发包裹“(.+)”？它会得到新的取件码（当前取件码随即失效），并按当前默认设置重新开始：10 次下载，从现在起 7 天。此前它允许 3 次下载，期限 2 天。$/,
    withdrawn: "此取件码已失效：包裹已被删除。",
    fileEnded: "已随包裹删除",
    noExpiry: "已结束",
  },
} as const;

for (const [size, lang] of [
  ["desktop", "en"],
  ["phone", "zh-CN"],
  ["phone", "en"],
  ["desktop", "zh-CN"],
] as const) {
  test(`reissue says what changes first; deleting the parcel withdraws the new code on screen (${size}, ${lang})`, async ({
    browser,
  }) => {
    const w = L[lang];
    const r = REISSUE[lang];
    const id = await lockedParcel(`locked-${size}.pdf`);
    const page = await openParcelPage(browser, size, lang);
    await signInAdmin(page, site, "parcels", lang);
    await page.getByLabel(w.state).selectOption({ label: w.locked });
    const row = page.locator(`[data-testid=parcel-row][data-id="${id}"]`);
    await row.getByRole("button", { name: new RegExp(`^${w.reissue}`) }).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog.locator("p")).toHaveText(r.confirm);
    await shootThemes(page, "parcel-admin-ux", `reissue-confirm-${size}-${lang}`);
    await dialog.getByRole("button", { name: w.reissue }).click();
    const share = page.getByTestId("reissue-share");
    await expect(share.locator(".share-code")).toHaveText(/^[0-9A-Z]{3}-[0-9A-Z]{3}$/);
    await expect(share.locator("img, canvas, svg").first()).toBeVisible();

    // The parcel is published again; show every state and delete it.
    await page.getByLabel(w.state).selectOption({ label: w.anyState });
    await row.getByRole("button", { name: new RegExp(`^${w.delete}`) }).click();
    await dialog.getByRole("button", { name: w.delete }).click();
    await expect(share).toContainText(r.withdrawn);
    await expect(share.locator(".share-code")).toHaveCount(0);
    await expect(share.locator("img, canvas, svg")).toHaveCount(0);
    await expect(share).not.toContainText(/\d+ (downloads left|次下载)/);
    await expect(share.getByRole("link")).toHaveCount(0);

    // The deleted parcel: no expiry, no "10 of 10", its file not a green "ready".
    await expect(row).not.toContainText(/\d+ of \d+|\d+ \/ \d+/);
    await expect(row.locator("td").nth(5)).toHaveText(r.noExpiry);
    await row.getByRole("button", { name: new RegExp(`^${w.files}`) }).click();
    const file = page.getByTestId("parcel-file").first();
    await expect(file).toContainText(r.fileEnded);
    await expect(file.locator(".adm-file-ready")).toHaveCount(0);
    await shootThemes(page, "parcel-admin-ux", `reissue-withdrawn-${size}-${lang}`);
    await page.context().close();
  });
}

/**
 * Each card's action buttons: how far the last one sits from the card's right edge, and the
 * widest gap between two neighbours (CSS pixels).
 */
async function actionEdges(page: Page): Promise<Array<{ inset: number; gap: number }>> {
  return page.getByTestId("parcel-row").evaluateAll((rows) =>
    rows.map((row) => {
      const boxes = [...row.querySelectorAll(".adm-actions button")].map((b) =>
        b.getBoundingClientRect(),
      );
      let gap = 0;
      for (let i = 1; i < boxes.length; i++)
        gap = Math.max(gap, boxes[i].left - boxes[i - 1].right);
      const right = row.getBoundingClientRect().right;
      return { inset: Math.round(right - boxes[boxes.length - 1].right), gap: Math.round(gap) };
    }),
  );
}

for (const lang of ["en", "zh-CN"] as const) {
  test(`on a phone every card's buttons line up and the pages stay on one line (${lang})`, async ({
    browser,
  }) => {
    const h = site.harness;
    for (let i = 0; i < 12; i++) {
      const up = await createUpload(h, { [`phone-list-${lang}-${i}.txt`]: 10 + i });
      expect((await uploadAndPublish(h, up)).status).toBe(200);
    }
    const page = await openParcelPage(browser, "phone", lang);
    await signInAdmin(page, site, "parcels", lang);
    await expect(page.getByTestId("parcel-row")).toHaveCount(10);
    // The last card (its own CSS rule) and an expanded one as well as the others.
    await page.getByTestId("parcel-row").first().locator(".adm-actions button").first().click();
    const edges = await actionEdges(page);
    expect(new Set(edges.map((e) => e.inset)).size, JSON.stringify(edges)).toBe(1);
    expect(Math.max(...edges.map((e) => e.gap)), JSON.stringify(edges)).toBeLessThan(12);
    const pager = page.locator(".adm-pager");
    const tops = await pager
      .locator(":scope > button, .adm-pager-where")
      .evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().top)));
    expect(tops.length).toBe(5);
    expect(Math.max(...tops) - Math.min(...tops), JSON.stringify(tops)).toBeLessThan(8);
    const box = await pager.boundingBox();
    expect(box && box.x + box.width).toBeLessThanOrEqual(390);
    await shootThemes(page, "parcel-admin-ux", `parcels-phone-${lang}`);
    // The pager and the last card up close (a full page is too tall to judge them by).
    await pager.scrollIntoViewIfNeeded();
    await saveShot(page, {
      path: `artifacts/screenshots/parcel-admin-ux-parcels-phone-bottom-${lang}.png`,
    });
    await page.context().close();
  });
}

const LOGIN = {
  en: { wrong: "Wrong username or password.", missing: "Enter the password." },
  "zh-CN": { wrong: "用户名或密码错误。", missing: "请输入密码。" },
} as const;

for (const [size, lang] of [
  ["desktop", "en"],
  ["phone", "zh-CN"],
  ["phone", "en"],
  ["desktop", "zh-CN"],
] as const) {
  test(`a wrong password is refused without emptying the field or calling it missing (${size}, ${lang})`, async ({
    browser,
  }) => {
    const w = L[lang];
    const page = await openParcelPage(browser, size, lang);
    await page.goto(`${site.url}/#/admin`);
    await page.getByLabel(w.username).fill(site.adminUser);
    const password = page.getByLabel(w.password, { exact: true });
    await password.fill("not the password");
    await page.getByRole("button", { name: w.signIn }).click();
    await expect(page.getByRole("alert")).toHaveText(LOGIN[lang].wrong);
    await expect(page.getByText(LOGIN[lang].missing)).toHaveCount(0);
    await expect(password).toHaveValue("not the password");
    await expect(password).not.toHaveAttribute("aria-invalid", "true");
    await expect(password).toBeFocused();
    // Selected: what is typed next replaces the wrong password.
    await page.keyboard.type(site.adminPassword);
    await expect(password).toHaveValue(site.adminPassword);
    await shootThemes(page, "parcel-admin-ux", `login-wrong-${size}-${lang}`);
    await page.getByRole("button", { name: w.signIn }).click();
    await expect(page.getByRole("heading", { name: w.heading })).toBeVisible();
    await page.context().close();
  });
}
