import { existsSync, openSync, readSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { createUpload, uploadAndPublish, type Created } from "../helpers/parcel-uploads.js";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { adminApi, signInAdmin } from "./support/parcel-page.js";
import { DESKTOP, PHONE, shootThemes } from "./support/shots.js";

/**
 * The Overview's "Stored files check" card against the real parcel service: a stored copy is
 * damaged on disk, "Verify now" starts the check, the card shows its progress, then says in
 * words which files were damaged, how many parcels hold them and that the copy was taken out
 * of service; in English and Chinese, at desktop and phone width, in both themes.
 */
let site: ParcelSite;
let damaged: Created;
let twin: Created;
const SIZE = 320 * 1024;

function blobPath(up: Created): string {
  const sha = site.harness.repos.parcels.file(up.files[0].id)?.sha256;
  if (!sha) throw new Error(`file ${up.files[0].id} has no stored content`);
  return join(site.harness.dataDir, "parcel", "blobs", sha.slice(0, 2), sha);
}

function sha(up: Created): string {
  return blobPath(up).split("/").pop() as string;
}

/** Flips one byte in the middle of a stored copy: same size, other content. */
function flipByte(path: string): void {
  const fd = openSync(path, "r+");
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, 1000);
    writeSync(fd, Buffer.from([b[0] ^ 0xff]), 0, 1, 1000);
  } finally {
    closeSync(fd);
  }
}

test.beforeAll(async () => {
  // Slow enough (a rest of at least 60 ms after each 32 KiB) that the card sees it run.
  site = await startParcelSite({
    verifyCheckMs: 0,
    verifyPace: { chunkBytes: 32 * 1024, rest: 1, busyRest: 9, minRestMs: 60 },
  });
  const h = site.harness;
  for (let i = 0; i < 5; i++) {
    const good = await createUpload(h, { [`holiday-${i + 1}.jpg`]: SIZE });
    expect((await uploadAndPublish(h, good, 0x41 + i)).status).toBe(200);
  }
  damaged = await createUpload(h, { "Annual report.pdf": SIZE });
  expect((await uploadAndPublish(h, damaged, 0x30)).status).toBe(200);
  // The same content in a second parcel, under another name: one stored copy, two parcels.
  twin = await createUpload(h, { "report (copy).pdf": SIZE });
  expect((await uploadAndPublish(h, twin, 0x30)).status).toBe(200);
  expect(sha(twin)).toBe(sha(damaged));
  flipByte(blobPath(damaged));
});

test.afterAll(async () => {
  await site?.close();
});

/** Nothing a person reads on the card is a hash, an id or a code of the API. */
async function expectOnlyWords(card: Locator): Promise<void> {
  const text = await card.innerText();
  expect(text).not.toMatch(/[0-9a-f]{16,}/);
  for (const raw of [damaged.id, damaged.files[0].id, twin.files[0].id, "quarantined", "reason."])
    expect(text).not.toContain(raw);
}

test("a stored copy damaged on disk is found by Verify now and said in words", async ({ page }) => {
  await page.setViewportSize(DESKTOP);
  await signInAdmin(page, site, "stats");
  const card = page.getByRole("region", { name: "Stored files check" });
  await expect(card.getByText("No check has run yet.")).toBeVisible();
  await card.getByRole("button", { name: "Verify now" }).click();

  // While it runs: a progress bar and how far it got, the button waiting.
  const progress = card.getByRole("progressbar", { name: "Progress of the check" });
  await expect(progress).toBeVisible();
  await expect(card.getByTestId("verify-progress")).toContainText(/Checked \d+ of 6 stored files/);
  await expect(card.getByRole("button", { name: "Checking…" })).toBeDisabled();
  await shootThemes(page, "parcel-admin-verify", "running-en-1440");

  // Then the finding, in words.
  const found = card.getByTestId("verify-found");
  await expect(found).toBeVisible({ timeout: 30_000 });
  await expect(found.getByRole("heading")).toHaveText("1 damaged copy found");
  const finding = found.getByTestId("verify-finding");
  await expect(finding).toHaveCount(1);
  // Both files whose content it was, the first stored first (its name is what the link seeks).
  await expect(finding).toContainText(/^Annual report\.pdf, report \(copy\)\.pdf: /);
  await expect(finding).toContainText("its stored copy no longer matches what was uploaded.");
  await expect(finding).toContainText(
    "Taken out of service: it is never sent, so 2 parcels cannot hand out this file until someone uploads it again.",
  );
  const last = card.getByTestId("verify-last");
  await expect(last).toContainText("Stored files checked");
  await expect(last).toContainText("6");
  await expect(last).toContainText("Time taken");
  await expect(card.getByRole("button", { name: "Verify now" })).toBeEnabled();
  await expectOnlyWords(card);
  // The overview reads its recent problems again when the check ends: the damage is there too,
  // named by the first file stored with that content (the same name on every run).
  await expect(
    page
      .getByRole("region", { name: "Recent problems" })
      .getByText(/The stored copy of Annual report\.pdf no longer matches/),
  ).toBeVisible();

  // What the card says is what happened: the copy left the store, downloads refuse it.
  expect(existsSync(blobPath(damaged))).toBe(false);
  const api = await (await adminApi(site)).call("GET", "/admin/verify");
  expect(api.json).toMatchObject({ running: false, checked: 6, total: 6 });

  await shootThemes(page, "parcel-admin-verify", "found-en-1440");
  await card.scrollIntoViewIfNeeded();
  await page.setViewportSize(PHONE);
  await expectNoOverflow(page);
  await shootThemes(page, "parcel-admin-verify", "found-en-390");

  // In Chinese.
  await page.getByLabel("Language").selectOption("zh-CN");
  const zhCard = page.getByRole("region", { name: "存储文件校验" });
  await expect(zhCard.getByTestId("verify-found").getByRole("heading")).toHaveText(
    "发现 1 个损坏的副本",
  );
  await expect(zhCard.getByTestId("verify-finding")).toContainText(
    "其存储副本已与上传的内容不一致。",
  );
  await expect(zhCard.getByTestId("verify-finding")).toContainText(
    "因此 2 个包裹在有人重新上传该文件之前无法提供它",
  );
  await expect(zhCard.getByRole("button", { name: "立即校验" })).toBeEnabled();
  await expectOnlyWords(zhCard);
  await expectNoOverflow(page);
  await shootThemes(page, "parcel-admin-verify", "found-zh-390");
  await page.setViewportSize(DESKTOP);
  await shootThemes(page, "parcel-admin-verify", "found-zh-1440");

  // "Show these parcels" opens the parcels tab searching for the damaged file.
  await zhCard.getByRole("link", { name: "查看这些包裹" }).click();
  await expect(page).toHaveURL(/#\/admin\/parcels$/);
  await expect(page.getByText("Annual report.pdf").first()).toBeVisible();
});

/** Nothing is wider than the viewport (a phone does not scroll sideways). */
async function expectNoOverflow(page: Page): Promise<void> {
  const wide = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(wide).toBeLessThanOrEqual(0);
}
