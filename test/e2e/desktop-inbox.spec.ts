import { expect, test } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { startDesktopRig, type DesktopRig } from "./support/desktop-bridge.js";
import { openWindow, shoot } from "./support/desktop-window.js";

/**
 * The inbox on the Desktop screen, in Chromium against the real services and the real main-side
 * handlers (the rig's IPC binding, the real inbox keeper signed in as the operator): the
 * operator opens the inbox, sees its code and QR code, a phone delivers, the delivery is saved
 * into the folder and listed with "Show in folder"; then the inbox is closed. Both languages,
 * both themes are photographed.
 */

let rig: DesktopRig | null = null;

test.afterEach(async () => {
  await rig?.close();
  rig = null;
});

/** A phone opens the inbox by its code and delivers `files`. */
async function deliver(base: string, code: string, files: Array<[string, Buffer]>): Promise<void> {
  const origin = base;
  const resolved = await fetch(`${base}/api/v1/inbox/resolve`, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ code }),
  });
  expect(resolved.status).toBe(200);
  const cookie = resolved.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const made = await fetch(`${base}/api/v1/uploads`, {
    method: "POST",
    headers: { "content-type": "application/json", origin, cookie },
    body: JSON.stringify({
      inbox: true,
      files: files.map(([name, data]) => ({ name, size: data.length })),
    }),
  });
  expect(made.status).toBe(201);
  const up = (await made.json()) as {
    id: string;
    manage_token: string;
    files: Array<{ id: string }>;
  };
  const auth = { authorization: `Bearer ${up.manage_token}`, origin, cookie };
  for (const [i, f] of up.files.entries()) {
    const put = await fetch(`${base}/api/v1/uploads/${up.id}/files/${f.id}`, {
      method: "PUT",
      headers: auth,
      body: new Uint8Array(files[i][1]),
    });
    expect(put.status).toBe(200);
  }
  const published = await fetch(`${base}/api/v1/uploads/${up.id}/publish`, {
    method: "POST",
    headers: auth,
  });
  expect(published.status).toBe(200);
}

test("the Desktop screen opens the inbox, lists a saved delivery with Show in folder, and closes it", async ({
  browser,
}) => {
  rig = await startDesktopRig({ secrets: "refused" });
  const { context, page } = await openWindow(browser, rig);
  await page.goto(rig.appUrl);
  // Found by its heading's id, which stays when the language changes.
  const panel = page.locator('section[aria-labelledby="desktop-inbox"]');
  await expect(panel.getByRole("heading", { level: 2 })).toHaveText(
    "Inbox: phones send to this computer",
  );
  await expect(panel.getByText("The inbox is closed.")).toBeVisible();
  await expect(panel.getByText(/Downloads\/Gatehouse$/)).toBeVisible();
  await panel.getByLabel("Open for").selectOption("60");
  await panel.getByRole("button", { name: "Open the inbox" }).click();
  const code = panel.getByRole("status", { name: "Inbox code" });
  await expect(code).toHaveText(/^[0-9A-Z]{3}-[0-9A-Z]{3}$/);
  await expect(panel.getByText(/^Closes in (59|60) min/)).toBeVisible();
  await expect(panel.locator("img.qr")).toHaveAttribute("data-qr-text", /\/#\/inbox\/[0-9A-Z]{6}$/);

  const photo = randomBytes(120_000);
  const note = Buffer.from("pick up milk");
  await deliver(rig.parcelUrl, (await code.textContent()) ?? "", [
    ["IMG_2041.jpg", photo],
    ["note.txt", note],
  ]);
  // The services' inbox.delivered event makes the app catch up; the rig has no event channel.
  await rig.inbox.sync();
  const delivery = panel.getByRole("listitem", { name: "IMG_2041.jpg, note.txt" });
  await expect(delivery.getByText("Saved")).toBeVisible();
  await expect(delivery.getByText("From 127.0.0.1")).toBeVisible();
  expect(rig.notes).toHaveLength(1);
  expect(rig.notes[0].title).toBe("Received from 127.0.0.1");
  await delivery.getByRole("button", { name: "Show in folder" }).click();
  await expect.poll(() => rig?.shown.length).toBe(1);
  expect(rig.shown[0]).toMatch(/Downloads\/Gatehouse\/IMG_2041\.jpg$/);
  expect(readFileSync(rig.shown[0]).equals(photo)).toBe(true);

  for (const lang of ["en", "zh-CN"] as const) {
    await page
      .getByLabel(/^Language$|^语言$/)
      .first()
      .selectOption(lang);
    await expect(
      page.getByRole("heading", {
        name: lang === "en" ? "Inbox: phones send to this computer" : "收件箱：手机发送到这台电脑",
      }),
    ).toBeVisible();
    await panel.scrollIntoViewIfNeeded();
    await shoot(page, `inbox-open-${lang}`);
  }
  await page.getByLabel("语言").first().selectOption("en");
  await panel.getByRole("button", { name: "Close the inbox" }).click();
  await expect(panel.getByText("The inbox is closed.")).toBeVisible();
  // The delivery stays listed after the inbox closed.
  await expect(delivery.getByText("Saved")).toBeVisible();
  await context.close();
});
