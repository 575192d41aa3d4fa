import { expect, test, type Page } from "@playwright/test";
import { ManualClock } from "../../server/clock.js";
import { PASSWORD, startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import { DESKTOP, PHONE, setUp, shootEverywhere } from "./support/proxy-page.js";

/**
 * After five wrong console passwords the sign-in page says how long to wait, from the
 * service's Retry-After, and its button counts the time down, as the pickup page does; once the
 * time is over, signing in works again.
 */

/** Times of day are the reader's: a fixed zone, so the expected text is known. */
test.use({ timezoneId: "UTC", locale: "en-GB" });

let svc: ProxyConsole;
const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));

test.beforeAll(async () => {
  svc = await startProxyConsole({ clock });
  await setUp(svc);
});
test.afterAll(async () => {
  await svc?.close();
});

async function tryPassword(page: Page, password: string): Promise<void> {
  await page.getByLabel(/^(Password|密码)$/).fill(password);
  await page.getByRole("button", { name: /^(Sign in|登录)$/ }).click();
}

test("five wrong passwords: the page counts down the wait the service gives, then signs in", async ({
  page,
}) => {
  test.setTimeout(120_000);
  // The page's own clock, moved by hand (the countdown is the page's; the block is the service's).
  await page.clock.install({ time: new Date(Date.UTC(2026, 0, 1, 12)) });
  await page.setViewportSize(DESKTOP);
  await page.goto(`${svc.url}/#/dashboard`);
  // From here the page's time moves only when the test moves it.
  await page.clock.pauseAt(new Date(Date.UTC(2026, 0, 1, 12, 0, 10)));
  for (let i = 0; i < 5; i++) {
    await tryPassword(page, `wrong password ${i}`);
    await expect(page.getByText("The password is wrong.")).toBeVisible();
  }
  await tryPassword(page, "wrong password 5");
  const said = page.getByRole("alert");
  await expect(said).toHaveText(
    "Too many wrong passwords from this device. Sign-in opens again at 12:16 PM.",
  );
  const button = page.getByRole("button", { name: /^Wait / });
  await expect(button).toHaveText("Wait 15 min");
  await expect(button).toBeDisabled();

  // The button counts down; the sentence names the time of day, which stays true.
  await page.clock.runFor(61_000);
  await expect(button).toHaveText("Wait 13 min 59 s");
  await expect(said).toHaveText(
    "Too many wrong passwords from this device. Sign-in opens again at 12:16 PM.",
  );
  await shootEverywhere(page, "login-wait", {
    before: async () => {
      await expect(page.getByRole("button", { name: /^(Wait|请等待) / })).toBeVisible();
    },
  });
  await page.getByLabel("Language").selectOption("zh-CN");
  await expect(said).toHaveText("此设备输错密码的次数过多。将于 12:16 重新开放登录。");
  await expect(page.getByRole("button", { name: /^请等待 / })).toHaveText("请等待 13 分 59 秒");
  await page.getByLabel("语言").selectOption("en");

  // The wait is over on both sides: the sentence goes, the button signs in again.
  clock.advance(15 * 60_000);
  await page.clock.runFor(14 * 60_000);
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  await expect(said).toHaveCount(0);
  await tryPassword(page, PASSWORD);
  await expect(page.locator("nav#console-nav")).toBeAttached();
  await page.setViewportSize(PHONE);
});
