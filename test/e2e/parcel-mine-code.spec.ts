import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { CookieJar } from "../helpers/parcel-harness.js";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { adminApi, openParcelPage, type AdminApi, type Lang } from "./support/parcel-page.js";
import { shootThemes } from "./support/shots.js";

/**
 * My parcels shows the code its owner handed out again, on the device that sent it (the
 * service keeps the code only sealed with the parcel's manage token, which that browser
 * holds), and says plainly when and why it cannot: sent from elsewhere, or a code the
 * administrator issued.
 */

let site: ParcelSite;
let dir: string;
let file: string;
let admin: AdminApi;

test.beforeAll(async () => {
  site = await startParcelSite();
  // Every run locks a parcel with wrong passwords from this one address: let them all count.
  const ctx = site.harness.service.ctx;
  ctx.setPolicy({ ...ctx.policy(), pickup_failures_per_ip: 100000 });
  dir = mkdtempSync(join(tmpdir(), "gh-parcel-mine-code-"));
  file = join(dir, "minutes.pdf");
  writeFileSync(file, Buffer.alloc(30_000, 7));
  admin = await adminApi(site);
});

test.afterAll(async () => {
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

const W = {
  en: {
    code: "Pickup code",
    show: "Show code",
    again: "This device can show the code again under My parcels.",
    noKey: /^The code cannot be shown here: this browser does not hold the parcel's key/,
    notKept: /^The code in use was issued without this parcel's key \(by the administrator/,
  },
  "zh-CN": {
    code: "取件码",
    show: "显示取件码",
    again: "在此设备的“我的包裹”中可以再次查看取件码。",
    noKey: /^无法在此显示取件码：此浏览器没有该包裹的密钥/,
    notKept: /^当前的取件码是在没有该包裹密钥的情况下签发的（包裹被锁定后由管理员重新签发）/,
  },
} as const;

/** Sends the file through the page with a password; answers the code and the parcel's id. */
async function send(page: Page, lang: Lang): Promise<{ code: string; id: string }> {
  await page.goto(`${site.url}/#/`);
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: /^Choose files$|^选择文件$/ }).click();
  await (await chooser).setFiles([file]);
  await page.getByLabel(/^Password \(optional\)$|^密码（可选）$/).fill("right one");
  await page.getByRole("button", { name: /^Upload|^上传/ }).click();
  const shown = page.getByRole("status", { name: W[lang].code });
  await expect(shown).toBeVisible();
  const code = (await shown.textContent()) ?? "";
  // Not "shown only once": this device can show it again.
  await expect(page.getByText(W[lang].again)).toBeVisible();
  const id = await page.evaluate(() =>
    Object.keys(localStorage)
      .find((k) => k.startsWith("gatehouse.parcel.token."))
      ?.slice("gatehouse.parcel.token.".length),
  );
  if (!id) throw new Error("the send page kept no token");
  return { code, id };
}

for (const [size, lang] of [
  ["phone", "en"],
  ["desktop", "zh-CN"],
  ["desktop", "en"],
  ["phone", "zh-CN"],
] as const) {
  test(`the owner sees the code again on the sending device, and is told why not elsewhere (${size}, ${lang})`, async ({
    browser,
  }) => {
    const w = W[lang];
    const page = await openParcelPage(browser, size, lang);
    const { code, id } = await send(page, lang);
    await page.goto(`${site.url}/#/mine`);
    const card = page.locator(".parcel-card").first();
    await card.getByRole("button", { name: w.show }).click();
    const share = card.getByTestId("parcel-share");
    await expect(share.getByRole("status", { name: w.code })).toHaveText(code);
    await expect(share.locator("svg, img, canvas").first()).toBeVisible();
    await shootThemes(page, "parcel-mine-code", `shown-${size}-${lang}`);

    // The administrator's reissue after a lock gives a code only the administrator has.
    const attempts = site.harness.service.ctx.policy().password_attempts;
    for (let i = 0; i < attempts; i++)
      await site.harness.request("POST", "/pickup/resolve", {
        body: { code, password: `wrong ${i}` },
        jar: new CookieJar(),
      });
    const re = await admin.call("POST", `/admin/parcels/${id}/reissue`);
    expect(re.status).toBe(200);
    await page.reload();
    await card.getByRole("button", { name: w.show }).click();
    await expect(card.getByRole("status").filter({ hasText: w.notKept })).toBeVisible();
    await expect(card.getByTestId("parcel-share")).toHaveCount(0);
    expect(await card.textContent()).not.toContain(re.json.code as string);
    await shootThemes(page, "parcel-mine-code", `reissued-${size}-${lang}`);

    // This browser loses the parcel's key (data cleared, or another device): it says so.
    await page.evaluate(
      (parcel) => localStorage.removeItem(`gatehouse.parcel.token.${parcel}`),
      id,
    );
    await page.reload();
    await card.getByRole("button", { name: w.show }).click();
    await expect(card.getByRole("status").filter({ hasText: w.noKey })).toBeVisible();
    await shootThemes(page, "parcel-mine-code", `no-key-${size}-${lang}`);
    await page.context().close();
  });
}

test("a new code asked here is the one shown again", async ({ browser }) => {
  const page = await openParcelPage(browser, "desktop", "en");
  const { code } = await send(page, "en");
  await page.goto(`${site.url}/#/mine`);
  const card = page.locator(".parcel-card").first();
  await card.getByRole("button", { name: "New code" }).click();
  await card.getByRole("button", { name: "Yes, new code" }).click();
  const fresh =
    (await card
      .getByTestId("parcel-share")
      .getByRole("status", { name: "Pickup code" })
      .textContent()) ?? "";
  expect(fresh).not.toBe(code);
  await page.reload();
  await card.getByRole("button", { name: "Show code" }).click();
  await expect(
    card.getByTestId("parcel-share").getByRole("status", { name: "Pickup code" }),
  ).toHaveText(fresh);
  await page.context().close();
});
