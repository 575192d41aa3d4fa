import { expect, test, type Page } from "@playwright/test";
import { PICKUP_FAILURE_WINDOW } from "../../server/parcel/domain/pickup.js";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { adminApi, openParcelPage, type AdminApi, type Lang } from "./support/parcel-page.js";
import { atBothSizesForShots, shootThemes } from "./support/shots.js";

/**
 * The inbox's code where a phone can type it: the Pick up form takes it and leads to the
 * inbox's send page (a wrong code still counts against the device); the wait after too many
 * wrong codes is said once, by the button that counts it down.
 */

let site: ParcelSite;
let admin: AdminApi;

test.beforeAll(async () => {
  site = await startParcelSite({ computerName: "Study PC" });
  admin = await adminApi(site);
});

test.afterAll(async () => {
  await site?.close();
});

async function openInbox(): Promise<string> {
  const r = await admin.call("POST", "/admin/inbox", {});
  expect(r.status).toBe(200);
  return r.json.code as string;
}

/** Failed pickups of this machine's address in the current window. */
const failures = () =>
  site.harness.repos.pickup.recentFailures("127.0.0.1", Date.now() / 1000, PICKUP_FAILURE_WINDOW)
    .length;

const WORDS = {
  en: {
    label: "Pickup code",
    open: "Open",
    said: "This is an inbox code: it sends files to Study PC",
    go: "Send files to Study PC",
    heading: "Send to Study PC",
    choose: "Choose files",
    wrong: "No parcel has this code.",
  },
  "zh-CN": {
    label: "取件码",
    open: "打开",
    said: "这是收件码：它用来把文件发送到 Study PC",
    go: "发送文件到 Study PC",
    heading: "发送到 Study PC",
    choose: "选择文件",
    wrong: "没有与此取件码对应的包裹。",
  },
} as const;

async function typeCode(page: Page, lang: Lang, code: string): Promise<void> {
  const w = WORDS[lang];
  await page.getByLabel(w.label).fill(code);
  await page.getByRole("button", { name: w.open, exact: true }).click();
}

for (const lang of ["en", "zh-CN"] as const) {
  test(`the inbox code typed into Pick up on a phone leads to sending (${lang}); a wrong code still counts`, async ({
    browser,
  }) => {
    const w = WORDS[lang];
    const code = await openInbox();
    const page = await openParcelPage(browser, "phone", lang);
    await page.goto(`${site.url}/#/pickup`);
    const before = failures();
    await typeCode(page, lang, "ZZZ-ZZZ");
    await expect(page.getByText(w.wrong)).toBeVisible();
    expect(failures()).toBe(before + 1);

    await typeCode(page, lang, code);
    await expect(page.getByText(w.said)).toBeVisible();
    // Its own code is not a guess: no more failures than before.
    expect(failures()).toBe(before + 1);
    await atBothSizesForShots(page, (width) =>
      shootThemes(page, "inbox-code", `pickup-${lang}-${width}`),
    );
    await page.getByRole("button", { name: w.go }).click();
    await expect(page.getByRole("heading", { name: w.heading })).toBeVisible();
    await expect(page.getByLabel(w.choose)).toBeAttached();
    expect(page.url()).toContain(`#/inbox/${code.replace(/-/g, "")}`);
    expect(failures()).toBe(before + 1);
    await page.context().close();
  });
}

const LOCKED = {
  pickup: {
    en: { said: "Too many wrong codes or passwords from this device.", button: /^Wait \d/ },
    "zh-CN": { said: "此设备输入错误的取件码或密码次数过多。", button: /^请等待 \d/ },
  },
  inbox: {
    en: { said: "Too many wrong codes or passwords from this device.", button: /^Try again in \d/ },
    "zh-CN": { said: "此设备输入错误的收件码或密码次数过多。", button: /^请在 \d.*后重试$/ },
  },
} as const;

test("after too many wrong codes the wait is said once, on the button that counts it down", async ({
  browser,
}) => {
  const code = await openInbox();
  site.harness.service.ctx.setPolicy({
    ...site.harness.service.ctx.policy(),
    pickup_failures_per_ip: 1,
  });
  // One wrong code from this address reaches the limit (whatever the tests before left).
  await site.harness.request("POST", "/pickup/resolve", { body: { code: "XXX-XXX" } });
  try {
    for (const lang of ["en", "zh-CN"] as const) {
      const page = await openParcelPage(browser, "phone", lang);
      await page.goto(`${site.url}/#/pickup`);
      // Past the limit of 1: this try is refused (429) and the wait begins.
      await typeCode(page, lang, "ZZZ-ZZZ");
      const p = LOCKED.pickup[lang];
      await expect(page.getByRole("alert")).toHaveText(p.said);
      await expect(page.getByRole("button", { name: p.button })).toBeDisabled();
      await atBothSizesForShots(page, (width) =>
        shootThemes(page, "inbox-code", `pickup-locked-${lang}-${width}`),
      );
      await page.goto(`${site.url}/#/inbox/${code.replace(/-/g, "")}`);
      const i = LOCKED.inbox[lang];
      await expect(page.getByRole("alert")).toHaveText(i.said);
      await expect(page.getByRole("button", { name: i.button })).toBeDisabled();
      await atBothSizesForShots(page, (width) =>
        shootThemes(page, "inbox-code", `inbox-locked-${lang}-${width}`),
      );
      await page.context().close();
    }
  } finally {
    site.harness.service.ctx.setPolicy({
      ...site.harness.service.ctx.policy(),
      pickup_failures_per_ip: 100_000,
    });
  }
});
