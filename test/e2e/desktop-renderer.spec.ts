import { expect, test } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { OPERATOR_ACCOUNTS } from "../../main/operator/types.js";
import { createKeychain } from "../../main/secrets/keychain.js";
import { readSettings } from "../../main/settings/store.js";
import { keychainProblem, startDesktopRig, type DesktopRig } from "./support/desktop-bridge.js";
import {
  keptIds,
  openWindow,
  sendText,
  shoot,
  SIZES,
  tokenKeys,
} from "./support/desktop-window.js";

/**
 * The renderer's desktop features in Chromium, against the real services and the real main-
 * side handlers (operator, OS keychain over D-Bus, settings file, IPC checks): `window.gatehouse`
 * is the real preload with a Playwright binding as its IPC. Without a Secret Service the
 * keychain tests skip and say so, except under CI, where they fail.
 */
const KEYCHAIN = `Gatehouse-e2e-${randomBytes(4).toString("hex")}`;
const problem = keychainProblem(KEYCHAIN);
const SKIP = `SKIPPED desktop renderer keychain tests: no Secret Service answers (${problem}). Run under dbus-run-session with gnome-keyring.`;
if (problem && !process.env.CI) console.warn(SKIP);
const keychainTest = problem && !process.env.CI ? test.skip : test;

let rig: DesktopRig | null = null;

test.afterEach(async () => {
  await rig?.close();
  rig = null;
  if (problem) return;
  const keychain = createKeychain(KEYCHAIN);
  for (const c of keychain.list()) keychain.delete(c.account);
});

keychainTest(
  "a sent parcel's token goes to the keychain only; My parcels lists it from there and drops it once the parcel ended",
  async ({ browser }) => {
    rig = await startDesktopRig({ secrets: "keychain", keychainService: KEYCHAIN });
    const { context, page } = await openWindow(browser, rig);
    await sendText(page, rig.parcelUrl, "first parcel from the desktop");
    await expect.poll(() => keptIds(rig as DesktopRig)).toHaveLength(1);
    const [first] = keptIds(rig);
    expect(await tokenKeys(page)).toEqual([]);
    await page.getByRole("button", { name: "Send something else" }).click();
    await sendText(page, rig.parcelUrl, "second parcel, deleted by the administrator");
    await expect.poll(() => keptIds(rig as DesktopRig)).toHaveLength(2);
    const second = keptIds(rig).find((id) => id !== first) ?? "";
    expect(await tokenKeys(page)).toEqual([]);

    // Without the visitor cookie, only the keychain knows these parcels are the operator's.
    await context.clearCookies({ name: "pt_visitor" });
    await page.goto(`${rig.parcelUrl}/#/mine`);
    await expect(page.getByText(/kept in the keychain/)).toBeVisible();
    const cards = page.locator(".parcel-card");
    await expect(cards).toHaveCount(2);
    await expect(page.getByText("second parcel", { exact: false })).toHaveCount(0);

    // The administrator deletes one: its token goes at the next look.
    const parcelCookies = rig.signIn.cookies.filter((c) => c.url === rig?.parcelUrl);
    const deleted = await fetch(`${rig.parcelUrl}/api/v1/admin/parcels/${second}/delete`, {
      method: "POST",
      headers: {
        origin: rig.parcelUrl,
        cookie: parcelCookies.map((c) => `${c.name}=${c.value}`).join("; "),
      },
    });
    expect(deleted.status).toBe(200);
    // GET /uploads/:id answers it as revoked (404 once cleanup removed its record): shown once
    // as ended, its token gone; the next look lists only the live one.
    await page.getByRole("button", { name: /Refresh/ }).click();
    await expect(cards.filter({ hasText: "Revoked" })).toHaveCount(1);
    await expect.poll(() => keptIds(rig as DesktopRig)).toEqual([first]);
    await page.getByRole("button", { name: /Refresh/ }).click();
    await expect(cards).toHaveCount(1);
    await expect(cards.filter({ hasText: "Revoked" })).toHaveCount(0);

    // The code it handed out is shown again: the app attaches the kept token that unseals it.
    await cards.getByRole("button", { name: "Show code" }).click();
    await expect(
      cards.getByTestId("parcel-share").getByRole("status", { name: "Pickup code" }),
    ).toHaveText(/^[0-9A-Z]{3}-[0-9A-Z]{3}$/);
    expect(await tokenKeys(page)).toEqual([]);

    // The owner revokes the other with the kept token: it has ended, so its token goes too.
    await cards.getByRole("button", { name: "Revoke" }).click();
    await cards.getByRole("button", { name: "Yes, revoke" }).click();
    await expect(cards.getByText("Revoked")).toBeVisible();
    await expect.poll(() => keptIds(rig as DesktopRig)).toEqual([]);
    expect(await tokenKeys(page)).toEqual([]);
    await context.close();
  },
);

test("with the keychain refused, the pages say so and keep tokens in memory only, never in localStorage", async ({
  browser,
}) => {
  rig = await startDesktopRig({ secrets: "refused" });
  const { context, page } = await openWindow(browser, rig);
  await page.goto(`${rig.parcelUrl}/#/`);
  const notice = page.getByTestId("keychain-refused");
  await expect(notice).toContainText("The keychain is not available.");
  await expect(notice).toContainText("Install and unlock gnome-keyring (or KWallet)");
  await sendText(page, rig.parcelUrl, "sent without a keychain");
  expect(await tokenKeys(page)).toEqual([]);
  // Still this window's (in memory): listed and managed without the visitor cookie.
  await context.clearCookies({ name: "pt_visitor" });
  await page.getByRole("link", { name: "My parcels", exact: true }).click();
  await expect(page.getByTestId("keychain-refused")).toBeVisible();
  await expect(page.locator(".parcel-card")).toHaveCount(1);
  expect(await tokenKeys(page)).toEqual([]);
  // This window's token still unseals the code it handed out.
  await page.locator(".parcel-card").getByRole("button", { name: "Show code" }).click();
  await expect(
    page.getByTestId("parcel-share").getByRole("status", { name: "Pickup code" }),
  ).toHaveText(/^[0-9A-Z]{3}-[0-9A-Z]{3}$/);
  // Not "again under My parcels": this window's memory is all that keeps the key.
  await expect(page.getByText("Note the code now: it is shown only once.")).toBeVisible();
  await page.getByTestId("parcel-share").getByRole("button", { name: "Close" }).click();

  for (const size of ["desktop", "phone"] as const) {
    await page.setViewportSize(SIZES[size]);
    for (const lang of ["en", "zh-CN"] as const) {
      await page.getByLabel(/^Language$|^语言$/).selectOption(lang);
      await expect(page.getByTestId("keychain-refused")).toContainText(
        lang === "en" ? "The keychain is not available." : "钥匙串不可用。",
      );
      await shoot(page, `keychain-refused-mine-${size}-${lang}`);
    }
    await page.getByLabel("语言").selectOption("en");
  }
  // The Desktop screen says where secrets go, in the same words.
  await page.goto(rig.appUrl);
  await expect(
    page.locator("section", { has: page.getByRole("heading", { name: "Where secrets are kept" }) }),
  ).toContainText("Install and unlock gnome-keyring");
  expect(await tokenKeys(page)).toEqual([]);
  await context.close();
});

keychainTest(
  "the services' pages in the window get no password, setup token, token or setting beyond the look",
  async ({ browser }) => {
    rig = await startDesktopRig({ secrets: "keychain", keychainService: KEYCHAIN });
    const r = rig;
    const { context, page } = await openWindow(browser, r);
    await sendText(page, r.parcelUrl, "a parcel whose token stays with the app");
    await expect.poll(() => keptIds(r)).toHaveLength(1);
    type Bridge = {
      operator: { revealPassword(s: string): Promise<unknown> };
      proxy: { setupToken(): Promise<unknown> };
      entries: { list(): Promise<unknown> };
      settings: { set(p: object): Promise<unknown> };
      tokens: { list(): Promise<string[]> } & Record<string, unknown>;
    };
    const attempt = () =>
      page.evaluate(async () => {
        const g = (window as unknown as { gatehouse: Bridge }).gatehouse;
        const said = (p: Promise<unknown>) =>
          p.then(
            () => "answered",
            (e: Error) => e.message.split(":")[0],
          );
        return {
          reveal: await said(g.operator.revealPassword("parcel")),
          setup: await said(g.proxy.setupToken()),
          entries: await said(g.entries.list()),
          port: await said(g.settings.set({ parcelPort: 8111 })),
          look: await said(g.settings.set({ theme: "dark" })),
          readsTokens: "get" in g.tokens,
        };
      });
    for (const base of [r.parcelUrl, r.proxyUrl]) {
      await page.goto(`${base}/`);
      expect(await attempt(), base).toEqual({
        reveal: "ipc.foreign_sender",
        setup: "ipc.foreign_sender",
        entries: "ipc.foreign_sender",
        port: "ipc.foreign_sender",
        look: "answered",
        readsTokens: false,
      });
    }
    // The same calls from the app's own page are answered.
    await page.goto(r.appUrl);
    const fromApp = await page.evaluate(async () => {
      const g = (window as unknown as { gatehouse: Bridge }).gatehouse;
      return typeof (await g.operator.revealPassword("parcel"));
    });
    expect(fromApp).toBe("string");
    // The page never held the token, yet My parcels manages the parcel: the app attaches it.
    await context.clearCookies({ name: "pt_visitor" });
    await page.goto(`${r.parcelUrl}/#/mine`);
    const cards = page.locator(".parcel-card");
    await expect(cards).toHaveCount(1);
    await cards.getByRole("button", { name: "Revoke" }).click();
    await cards.getByRole("button", { name: "Yes, revoke" }).click();
    await expect(cards.getByText("Revoked")).toBeVisible();
    expect(await tokenKeys(page)).toEqual([]);
    await context.close();
  },
);

keychainTest("both consoles open signed in", async ({ browser }) => {
  rig = await startDesktopRig({ secrets: "keychain", keychainService: KEYCHAIN });
  expect(rig.signIn.parcel?.state).toBe("signed-in");
  expect(rig.signIn.proxy?.state).toBe("signed-in");
  const { context, page } = await openWindow(browser, rig);
  await page.goto(`${rig.parcelUrl}/#/admin`);
  await expect(page.getByRole("heading", { name: "Parcel administration" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Administrator sign-in" })).toHaveCount(0);
  await page.goto(`${rig.proxyUrl}/`);
  await expect(page.getByRole("button", { name: "Log out" }).first()).toBeVisible();
  await expect(page.getByRole("heading", { name: "Set up the proxy console" })).toHaveCount(0);
  await context.close();
});

keychainTest(
  "a proxy console set up elsewhere signs in by hand, then keeps the password in the keychain",
  async ({ browser }) => {
    const password = "set up in a browser 42";
    rig = await startDesktopRig({
      secrets: "keychain",
      keychainService: KEYCHAIN,
      proxySetUpElsewhere: password,
    });
    expect(rig.signIn.proxy).toEqual({ state: "need-password", reason: "no-stored-password" });
    const { context, page } = await openWindow(browser, rig);
    await page.goto(`${rig.proxyUrl}/`);
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("remember-offer")).toContainText("Keep this password");
    await page.getByRole("button", { name: "Keep it in the keychain" }).click();
    await expect(page.getByRole("button", { name: "Log out" }).first()).toBeVisible();
    expect(rig.secrets.get(OPERATOR_ACCOUNTS.proxy)).toBe(password);
    // The window's session is the one the desktop signed in with: it still works after a reload.
    await page.reload();
    await expect(page.getByRole("button", { name: "Log out" }).first()).toBeVisible();
    await context.close();
  },
);

keychainTest(
  "the Desktop screen saves settings, shows each LAN address with a QR code, and reveals and changes a password",
  async ({ browser }) => {
    rig = await startDesktopRig({ secrets: "keychain", keychainService: KEYCHAIN });
    const r = rig;
    const { context, page } = await openWindow(browser, r);
    await page.goto(`${r.parcelUrl}/#/`);
    // The parcel page asks the app to show its Desktop screen, an app page of its own.
    await page.getByRole("link", { name: "Desktop" }).click();
    await expect(page.getByRole("heading", { name: "Desktop", level: 1 })).toBeVisible();
    expect(r.opened).toEqual(["settings"]);
    expect(new URL(page.url()).pathname).toBe("/desktop.html");

    // Addresses: Ethernet and Wi-Fi (not Docker's bridge), each with a drawn QR code.
    const port = new URL(r.parcelUrl).port;
    const qr = page.locator(".desktop-entry img.qr");
    await expect(qr).toHaveCount(2);
    await expect(qr.nth(0)).toHaveAttribute("data-qr-text", `http://192.168.1.23:${port}`);
    await expect(qr.nth(1)).toHaveAttribute("data-qr-text", `http://10.0.0.5:${port}`);
    await expect(qr.nth(0)).toHaveAttribute("src", /^data:image\/png;base64,/);
    await expect(page.getByRole("button", { name: "Copy address" })).toHaveCount(2);

    // A setting the main side refuses is named beside its field; nothing is stored.
    await page.getByLabel("Proxy console port").fill("8000");
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Not saved: check the fields marked below.")).toBeVisible();
    await expect(page.locator('[data-field="proxyPort"] .field-error')).toHaveText(
      "Another Gatehouse service already uses this port.",
    );
    expect(readSettings(r.settings).proxyPort).toBe(8080);
    await page.getByLabel("Proxy console port").fill("8080");

    // A setting the app applies live: saved, no restart.
    await page.getByLabel("Closing the window keeps Gatehouse running in the tray").uncheck();
    await expect(page.getByText("1 unsaved change.")).toBeVisible();
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Saved.", { exact: true })).toBeVisible();
    expect(readSettings(r.settings).closeToTray).toBe(false);

    // Choosing networks and turning the LAN name off restart the services; the page says so.
    const lanName = page.getByLabel("Announce this computer on the LAN by name");
    await expect(lanName).toBeChecked();
    await lanName.uncheck();
    await page.getByLabel("Only the networks chosen here").check();
    await page.getByRole("checkbox", { name: /wlan0/ }).check();
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText(/The services restart to use it/)).toBeVisible();
    expect(readSettings(r.settings).entries).toEqual(["wlan0"]);
    expect(readSettings(r.settings).lanName).toBe(false);
    // The addresses follow the stored choice at once, not at their next read (every 10 s).
    await expect(qr).toHaveCount(1, { timeout: 5_000 });
    await expect(qr.first()).toHaveAttribute("data-qr-text", `http://10.0.0.5:${port}`);

    // Passwords: hidden until asked for; the shown one is what the keychain keeps.
    const parcelCard = page.locator('[data-service="parcel"]');
    await expect(parcelCard.getByTestId("revealed-password")).toHaveCount(0);
    await parcelCard.getByRole("button", { name: "Show password" }).click();
    const kept = r.secrets.get(OPERATOR_ACCOUNTS.parcel) ?? "";
    expect(kept.length).toBeGreaterThan(12);
    await expect(parcelCard.getByTestId("revealed-password")).toHaveText(kept);
    await parcelCard.getByRole("button", { name: "Hide" }).click();
    await expect(parcelCard.getByTestId("revealed-password")).toHaveCount(0);

    await parcelCard.getByRole("button", { name: "Change password" }).click();
    await parcelCard.getByLabel("New password", { exact: true }).fill("short");
    await parcelCard.getByLabel("Repeat the new password").fill("short");
    await parcelCard.getByRole("button", { name: "Change password" }).click();
    await expect(parcelCard.getByText(/The password is too short/)).toBeVisible();
    await page
      .locator('[data-service="proxy"]')
      .getByRole("button", { name: "Show password" })
      .click();
    await parcelCard.scrollIntoViewIfNeeded();
    await shoot(page, "passwords-desktop-en");
    const next = "desktop e2e parcel 2026";
    await parcelCard.getByLabel("New password", { exact: true }).fill(next);
    await parcelCard.getByLabel("Repeat the new password").fill(next);
    await parcelCard.getByRole("button", { name: "Change password" }).click();
    await expect(parcelCard.getByText(/Password changed and kept in the keychain/)).toBeVisible();
    expect(r.secrets.get(OPERATOR_ACCOUNTS.parcel)).toBe(next);
    const login = (password: string) =>
      fetch(`${r.parcelUrl}/api/v1/admin/login`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: r.parcelUrl },
        body: JSON.stringify({ username: r.services.parcel?.adminUser, password }),
      }).then((res) => res.status);
    expect(await login(kept)).toBe(401);
    expect(await login(next)).toBe(200);
    // The change ended the other sessions; the window got the new one and stays signed in.
    await page.goto(`${r.parcelUrl}/#/admin`);
    await expect(page.getByRole("heading", { name: "Parcel administration" })).toBeVisible();

    // Language from the desktop settings: both consoles follow.
    await page.goto(r.appUrl);
    // The header's picker is there at once, the form's only once the settings have loaded:
    // wait for both, or `last()` would be the header's picker.
    const languages = page.getByRole("combobox", { name: "Language", exact: true });
    await expect(languages).toHaveCount(2);
    await languages.last().selectOption("zh-CN");
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByRole("heading", { name: "桌面设置", level: 1 })).toBeVisible();
    expect(readSettings(r.settings).language).toBe("zh-CN");
    const proxyPage = await context.newPage();
    await proxyPage.goto(`${r.proxyUrl}/`);
    await expect(proxyPage.getByRole("button", { name: "退出登录" }).first()).toBeVisible();
    await proxyPage.close();

    for (const size of ["desktop", "phone"] as const) {
      await page.setViewportSize(SIZES[size]);
      for (const lang of ["zh-CN", "en"] as const) {
        await page
          .getByLabel(/^Language$|^语言$/)
          .first()
          .selectOption(lang);
        await expect(page.getByRole("heading", { level: 1 })).toHaveText(
          lang === "en" ? "Desktop" : "桌面设置",
        );
        // The header's picker saves the desktop setting, and the form shows it.
        await expect(page.locator('[data-field="language"] select')).toHaveValue(lang);
        await expect.poll(() => readSettings(r.settings).language).toBe(lang);
        await expect(qr.first()).toHaveAttribute("src", /^data:image\/png/);
        await shoot(page, `settings-${size}-${lang}`);
      }
    }
    await context.close();
  },
);
