import { expect, test, type Page } from "@playwright/test";
import { CookieJar } from "../helpers/parcel-harness.js";
import { bearer, createUpload, uploadAndPublish } from "../helpers/parcel-uploads.js";
import { startParcelSite, type ParcelSite } from "./support/parcel-harness.js";
import { adminApi, signInAdmin, type AdminApi } from "./support/parcel-page.js";
import { shootThemes } from "./support/shots.js";

/**
 * The parcel admin console (#/admin) against the real parcel service: 30 published parcels,
 * an open upload, one revoked and one locked in review, made through the HTTP API.
 * The browser runs in Asia/Shanghai (UTC+8) so local-time conversion is really exercised.
 */
const ZONE = "Asia/Shanghai";
const ZONE_OFFSET_S = 8 * 3600;
test.use({ timezoneId: ZONE });

let site: ParcelSite;
/** The test's own admin session for checking what the UI did. */
let admin: AdminApi;
const KINDS = ["invoice", "holiday-photo", "notes", "backup", "slides"] as const;
let reviewId = "";
let revokedId = "";
let openUploadId = "";

test.beforeAll(async () => {
  site = await startParcelSite();
  const h = site.harness;
  const visitor = new CookieJar();
  await h.request("GET", "/policy", { jar: visitor });
  for (let i = 0; i < 30; i++) {
    const kind = KINDS[i % KINDS.length];
    const files: Record<string, number> = {
      [`${kind}-${String(i).padStart(2, "0")}.dat`]: 100 + i,
    };
    if (i % 3 === 0) files[`readme-${i}.txt`] = 40;
    // Every other parcel belongs to a browser visitor, the rest to scripts with a token.
    const r = await h.request("POST", "/uploads", {
      body: { files: Object.entries(files).map(([name, size]) => ({ name, size })) },
      jar: i % 2 === 0 ? visitor : new CookieJar(),
    });
    expect(r.status).toBe(201);
    const published = await uploadAndPublish(h, r.json);
    expect(published.status).toBe(200);
  }
  const locked = await createUpload(h, { "locked-report.pdf": 2048 }, { password: "right one" });
  const lockedShare = await uploadAndPublish(h, locked);
  reviewId = locked.id;
  for (let i = 0; i < 5; i++) {
    const r = await h.request("POST", "/pickup/resolve", {
      body: { code: lockedShare.json.code, password: `wrong ${i}` },
      jar: new CookieJar(),
    });
    expect(r.status).toBe(401);
  }
  const gone = await createUpload(h, { "withdrawn.zip": 512 });
  await uploadAndPublish(h, gone);
  const revoke = await h.request("POST", `/parcels/${gone.id}/revoke`, {
    headers: bearer(gone.manage_token),
  });
  expect(revoke.status).toBe(200);
  revokedId = gone.id;
  openUploadId = (await createUpload(h, { "draft-upload.bin": 4096 })).id;
  admin = await adminApi(site);
});

test.afterAll(async () => {
  await site?.close();
});

async function shoot(page: Page, name: string): Promise<void> {
  await shootThemes(page, "parcel-admin", name);
}

/** The parcel rows of the table, as the ids the rows carry. */
async function rowIds(page: Page): Promise<string[]> {
  return page
    .getByTestId("parcel-row")
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-id") ?? ""));
}

/** `YYYY-MM-DDTHH:mm` in the browser's zone (UTC+8) for Unix seconds. */
function zoneLocal(unix: number): string {
  return new Date((unix + ZONE_OFFSET_S) * 1000).toISOString().slice(0, 16);
}

test.describe("parcel admin console", () => {
  test("a wrong password is refused in words, then the overview shows the service's numbers", async ({
    page,
  }) => {
    await page.goto(`${site.url}/#/admin`);
    await expect(page.getByRole("heading", { name: "Administrator sign-in" })).toBeVisible();
    await shoot(page, "login");
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert")).toHaveText("Wrong username or password.");
    // The password stays (selected, so typing replaces it) and is not flagged as missing.
    await expect(page.getByLabel("Password")).toHaveValue("not the password");
    await expect(page.getByText("Enter the password.")).toHaveCount(0);

    await page.getByLabel("Password").fill(site.adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByText(`Signed in as ${site.adminUser}`)).toBeVisible();
    await expect(page.getByRole("link", { name: "Overview" })).toHaveAttribute(
      "aria-current",
      "page",
    );
    const stats = await admin.json<{
      parcels: { total: number; by_state: Record<string, number> };
      files: { total: number };
    }>("GET", "/admin/stats");
    expect(stats.parcels.total).toBe(33);
    await expect(page.getByTestId("stats-total")).toHaveText(`${stats.parcels.total} parcels`);
    await expect(page.getByTestId("stats-state-published")).toContainText(
      String(stats.parcels.by_state.published),
    );
    await expect(page.getByTestId("stats-state-review")).toContainText("1");
    await expect(page.getByTestId("stats-state-uploading")).toContainText("1");
    await expect(page.getByTestId("stats-files")).toHaveText(String(stats.files.total));
    for (const name of ["File budget", "Data budget"])
      await expect(page.getByRole("meter", { name })).toBeVisible();
    await expect(page.getByText("Saved by deduplication")).toBeVisible();
    await shoot(page, "stats");

    // A state in the overview opens the parcels tab filtered to it.
    await page.getByTestId("stats-state-review").getByRole("link").click();
    await expect(page).toHaveURL(/#\/admin\/parcels$/);
    await expect(page.getByRole("combobox", { name: "State" })).toHaveValue("review");
    await expect(page.getByTestId("parcel-count")).toHaveText("1 parcel matches");

    const fails = await admin.json<{ total: number; items: Array<{ action: string }> }>(
      "GET",
      "/admin/audit?action=admin.login_fail",
    );
    expect(fails.total).toBeGreaterThanOrEqual(1);
  });

  test("the parcels table searches, filters, pages and returns to page 1", async ({ page }) => {
    await signInAdmin(page, site, "parcels");
    const count = page.getByTestId("parcel-count");
    await expect(count).toHaveText("33 parcels match");
    await expect(page.getByTestId("parcel-row")).toHaveCount(10);
    const pageInput = page.getByRole("spinbutton", { name: "Page" });
    await expect(pageInput).toHaveValue("1");
    await expect(page.getByText("of 4", { exact: true })).toBeVisible();
    const first = await rowIds(page);
    const api1 = await admin.json<{ items: Array<{ id: string }> }>("GET", "/admin/parcels?page=1");
    expect(first).toEqual(api1.items.map((p) => p.id));

    await page.getByRole("button", { name: "Next" }).click();
    await expect(pageInput).toHaveValue("2");
    const api2 = await admin.json<{ items: Array<{ id: string }> }>("GET", "/admin/parcels?page=2");
    await expect.poll(() => rowIds(page)).toEqual(api2.items.map((p) => p.id));
    await page.getByRole("button", { name: "Last page" }).click();
    await expect(pageInput).toHaveValue("4");
    await expect(page.getByTestId("parcel-row")).toHaveCount(3);

    // Searching from page 4 goes back to page 1.
    await page.getByLabel("Search").fill("INVOICE");
    await expect(count).toHaveText("6 parcels match");
    await expect(pageInput).toHaveValue("1");
    await expect(page.getByTestId("parcel-row")).toHaveCount(6);
    await page
      .getByRole("button", { name: /^Files/ })
      .first()
      .click();
    await expect(page.getByTestId("parcel-file").first()).toContainText(/invoice-\d\d\.dat/);

    // A fragment of an id finds that parcel.
    await page.getByLabel("Search").fill(reviewId.slice(3, 12));
    await expect(count).toHaveText("1 parcel matches");
    await expect(page.getByTestId("parcel-row")).toHaveAttribute("data-id", reviewId);
    await page.getByLabel("Search").fill("");
    await expect(count).toHaveText("33 parcels match");

    await page.getByRole("button", { name: "Next" }).click();
    await expect(pageInput).toHaveValue("2");
    await page.getByLabel("Per page").selectOption("25");
    await expect(pageInput).toHaveValue("1");
    await expect(page.getByTestId("parcel-row")).toHaveCount(25);
    await expect(page.getByText("of 2", { exact: true })).toBeVisible();
    await page.getByRole("button", { name: "Next" }).click();
    await expect(page.getByTestId("parcel-row")).toHaveCount(8);

    await page.getByRole("combobox", { name: "State" }).selectOption("review");
    await expect(count).toHaveText("1 parcel matches");
    await expect(pageInput).toHaveValue("1");
    await expect(page.getByTestId("parcel-row")).toHaveAttribute("data-id", reviewId);
    await page.getByRole("combobox", { name: "State" }).selectOption("uploading");
    await expect(page.getByTestId("parcel-row")).toHaveAttribute("data-id", openUploadId);
    await expect(page.getByTestId("parcel-row")).toContainText("not sent yet");
    await page.getByRole("combobox", { name: "State" }).selectOption("revoked");
    await expect(page.getByTestId("parcel-row")).toHaveAttribute("data-id", revokedId);
    await page.getByRole("combobox", { name: "State" }).selectOption("expired");
    await expect(page.getByText("No parcel matches this search.")).toBeVisible();
    await page.getByRole("combobox", { name: "State" }).selectOption("");
    await page.getByLabel("Per page").selectOption("10");
    await expect(page.getByTestId("parcel-row")).toHaveCount(10);
    await page
      .getByRole("button", { name: /^Files/ })
      .nth(0)
      .click();
    await shoot(page, "parcels");
  });

  test("deleting a file and then a parcel asks first and updates the service", async ({ page }) => {
    await signInAdmin(page, site, "parcels");
    // backup-18 has two files (18 % 3 == 0).
    await page.getByLabel("Search").fill("backup-18");
    await expect(page.getByTestId("parcel-count")).toHaveText("1 parcel matches");
    const row = page.getByTestId("parcel-row");
    const id = (await row.getAttribute("data-id")) ?? "";
    await row.getByRole("button", { name: /^Files/ }).click();
    const files = page.getByTestId("parcel-file");
    await expect(files).toHaveCount(2);

    // Cancel first: nothing happens.
    await files.filter({ hasText: "readme-18.txt" }).getByRole("button").click();
    const dialog = page.getByRole("dialog");
    await expect(dialog).toContainText("readme-18.txt");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await expect(files).toHaveCount(2);

    await files.filter({ hasText: "readme-18.txt" }).getByRole("button").click();
    await dialog.getByRole("button", { name: "Delete file" }).click();
    await expect(page.getByRole("status").filter({ hasText: "readme-18.txt" })).toHaveText(
      "File “readme-18.txt” deleted.",
    );
    await expect(files).toHaveCount(1);
    let list = await admin.json<{ items: Array<{ id: string; state: string; files: unknown[] }> }>(
      "GET",
      `/admin/parcels?q=${id}`,
    );
    expect(list.items[0].files).toHaveLength(1);
    expect(list.items[0].state).toBe("published");

    await row.getByRole("button", { name: /^Delete/ }).click();
    // The parcel is named by its file, not by its id.
    await expect(dialog).toContainText("Delete the parcel “backup-18.dat”?");
    await dialog.getByRole("button", { name: "Delete" }).click();
    await expect(row.getByText("Revoked")).toBeVisible();
    // An ended parcel offers no deletes any more.
    await expect(row.getByRole("button", { name: /^Delete/ })).toHaveCount(0);
    list = await admin.json("GET", `/admin/parcels?q=${id}`);
    expect(list.items[0].state).toBe("revoked");
    const audit = await admin.json<{ items: Array<{ target: string }> }>(
      "GET",
      "/admin/audit?action=admin.parcel_delete",
    );
    expect(audit.items.map((a) => a.target)).toContain(`parcel:${id}`);
  });

  test("reissuing a parcel in review shows the new share, and its code works", async ({ page }) => {
    await signInAdmin(page, site, "parcels");
    await page.getByRole("combobox", { name: "State" }).selectOption("review");
    const row = page.getByTestId("parcel-row");
    await expect(row).toHaveCount(1);
    await expect(row).toHaveAttribute("data-id", reviewId);
    await row.getByRole("button", { name: /^Reissue/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Reissue" }).click();
    const share = page.getByTestId("reissue-share");
    await expect(share).toBeVisible();
    const code = (await share.getByLabel("Pickup code").textContent()) ?? "";
    expect(code).toMatch(/^[0-9A-Z]{3}-[0-9A-Z]{3}$/);
    await expect(share.getByRole("img", { name: /QR code of/ })).toBeVisible();
    await expect(share.getByRole("link")).toHaveAttribute("href", new RegExp(`#/pickup/`));
    await expect(share.getByRole("button", { name: "Copy code" })).toBeVisible();
    // The filter still says review, and the parcel has left that state.
    await expect(page.getByText("No parcel matches this search.")).toBeVisible();
    await shoot(page, "reissue");

    const resolve = await site.harness.request("POST", "/pickup/resolve", {
      body: { code, password: "right one" },
      jar: new CookieJar(),
    });
    expect(resolve.status).toBe(200);
  });

  test("policy and runtime: changed fields only, byte units, range errors and the service's refusal", async ({
    page,
  }) => {
    await signInAdmin(page, site, "settings");
    const policy = page.getByTestId("policy-form");
    const save = policy.getByRole("button", { name: /^Save changes/ });
    await expect(save).toBeDisabled();

    const codeLength = policy.getByLabel("Pickup code length");
    await codeLength.fill("5");
    await expect(policy.getByText("Enter a value from 6 to 16.")).toBeVisible();
    await expect(codeLength).toHaveAttribute("aria-invalid", "true");
    await policy.getByLabel("Largest parcel", { exact: true }).fill("25");
    await shoot(page, "settings-editing");
    await policy.getByLabel("Largest parcel", { exact: true }).fill("20");
    await codeLength.fill("eight");
    await expect(policy.getByText("Enter a whole number.")).toBeVisible();
    await codeLength.fill("8");
    await policy.getByLabel("Largest file", { exact: true }).fill("512");
    await policy.getByLabel("Unit of Largest file").selectOption("MiB");
    await policy.getByLabel("Require a pickup password").check();
    await expect(policy.getByText("3 unsaved changes.")).toBeVisible();
    const put = page.waitForRequest(
      (r) => r.method() === "PUT" && r.url().endsWith("/api/v1/admin/policy"),
    );
    await save.click();
    expect((await put).postDataJSON()).toEqual({
      code_length: 8,
      max_file_bytes: 512 * 1024 * 1024,
      require_password: true,
    });
    await expect(policy.getByText("Saved (3 changed).")).toBeVisible();
    const saved = await admin.json<Record<string, unknown>>("GET", "/admin/policy");
    expect(saved).toMatchObject({
      code_length: 8,
      max_file_bytes: 536870912,
      require_password: true,
      max_days: 30,
    });

    // Client-side cross-field rule.
    await policy.getByLabel("Renewal step (days)").fill("10");
    await policy.getByLabel("Renewal cap (days after sending)").fill("5");
    await expect(policy.getByText("Must be at least the renewal step (10 days).")).toBeVisible();
    await policy.getByRole("button", { name: "Undo changes" }).click();
    await expect(policy.getByLabel("Renewal step (days)")).toHaveValue("3");

    // Another administrator shortens the longest term meanwhile: this page's default term of
    // 20 is valid against what it loaded, and only the service can refuse it, in its words.
    await admin.json("PUT", "/admin/policy", { default_days: 5, max_days: 10 });
    await policy.getByLabel("Default term (days)").fill("20");
    await save.click();
    await expect(policy.getByRole("alert")).toHaveText(
      "“Default term (days)” (20) must not be more than “Longest term (days)” (10).",
    );
    expect((await admin.json<{ default_days: number }>("GET", "/admin/policy")).default_days).toBe(
      5,
    );
    await policy.getByRole("button", { name: "Reload" }).click();
    await expect(policy.getByLabel("Default term (days)")).toHaveValue("5");
    await expect(policy.getByLabel("Longest term (days)")).toHaveValue("10");

    const runtime = page.getByTestId("runtime-form");
    await expect(runtime.getByLabel("Data budget", { exact: true })).toHaveValue("100");
    await expect(runtime.getByLabel("Unit of Data budget")).toHaveValue(String(1024 ** 3));
    await runtime.getByLabel("Data budget", { exact: true }).fill("1.5");
    await runtime.getByLabel("Keep records (days)").fill("0");
    await expect(runtime.getByText("Enter 1 or more.")).toBeVisible();
    await runtime.getByLabel("Keep records (days)").fill("30");
    const putRuntime = page.waitForRequest(
      (r) => r.method() === "PUT" && r.url().endsWith("/api/v1/admin/runtime"),
    );
    await runtime.getByRole("button", { name: /^Save changes/ }).click();
    expect((await putRuntime).postDataJSON()).toEqual({
      data_budget_bytes: 1.5 * 1024 ** 3,
      audit_retention_days: 30,
    });
    await expect(runtime.getByText("Saved (2 changed).")).toBeVisible();
    expect(await admin.json("GET", "/admin/runtime")).toMatchObject({
      data_budget_bytes: 1610612736,
      audit_retention_days: 30,
    });
    await admin.json("PUT", "/admin/policy", { default_days: 7, max_days: 30 });
    await policy.getByRole("button", { name: "Reload" }).click();
    await shoot(page, "settings");
  });

  test("the audit log filters by action and by a time range in the local zone", async ({
    page,
  }) => {
    await signInAdmin(page, site, "audit");
    const count = page.getByTestId("audit-count");
    const all = await admin.json<{ total: number }>("GET", "/admin/audit");
    await expect(count).toHaveText(`${all.total} records match`);
    await expect(page.getByText(`Your time zone: ${ZONE}`)).toBeVisible();

    // The filters apply as they change: there is no button to press.
    await page.getByLabel("Action").selectOption("parcel.publish");
    await expect(count).toHaveText("32 records match");
    await expect(page.getByTestId("audit-row")).toHaveCount(20);
    const actions = await page
      .getByTestId("audit-row")
      .locator("td:nth-child(2)")
      .allTextContents();
    expect(new Set(actions)).toEqual(new Set(["Parcel sent"]));
    await page.getByRole("button", { name: "Next" }).click();
    await expect(page.getByTestId("audit-row")).toHaveCount(12);

    // A range an hour ago (in Shanghai time) holds nothing; one around now holds the records.
    const now = Math.floor(Date.now() / 1000);
    await page.getByLabel("From").fill(zoneLocal(now - 7200));
    await page.getByLabel("Until").fill(zoneLocal(now - 3600));
    await expect(page.getByText("No record matches these filters.")).toBeVisible();

    const from = now - 1800;
    const to = now + 600;
    await page.getByLabel("From").fill(zoneLocal(from));
    // "From" after "Until" is refused on the spot and sends nothing; the valid pair is sent.
    const request = page.waitForRequest(
      (r) =>
        r.url().includes("/api/v1/admin/audit?") && r.url().includes(`to=${to - (to % 60) + 59}`),
    );
    await page.getByLabel("Until").fill(zoneLocal(to));
    const sent = new URL((await request).url()).searchParams;
    // Minutes in the local zone: from the start of the first minute to the end of the last.
    expect(Number(sent.get("from"))).toBe(from - (from % 60));
    expect(Number(sent.get("to"))).toBe(to - (to % 60) + 59);
    expect(sent.get("page")).toBe("1");
    const expected = await admin.json<{ total: number }>(
      "GET",
      `/admin/audit?action=parcel.publish&from=${sent.get("from")}&to=${sent.get("to")}`,
    );
    expect(expected.total).toBe(32);
    expect(sent.get("action")).toBe("parcel.publish");
    await expect(count).toHaveText("32 records match");

    // A quick range: the last hour up to now, in local minutes.
    const quick = page.waitForRequest((r) => r.url().includes("/api/v1/admin/audit?"));
    await page.getByRole("button", { name: "Last hour" }).click();
    const range = new URL((await quick).url()).searchParams;
    const at = Math.floor(Date.now() / 1000);
    expect(at - 3600 - Number(range.get("from"))).toBeGreaterThanOrEqual(0);
    expect(at - 3600 - Number(range.get("from"))).toBeLessThan(180);
    expect(Number(range.get("to"))).toBeGreaterThanOrEqual(at - 60);
    await expect(page.getByLabel("From")).toHaveValue(zoneLocal(Number(range.get("from"))));
    await expect(count).toHaveText("32 records match");

    // An end before the start is refused before anything is sent.
    await page.getByLabel("Until").fill(zoneLocal(from - 3600));
    await expect(page.getByText("Must not be earlier than “From”.")).toBeVisible();

    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.getByLabel("Source").fill("admin:admin");
    await page.getByLabel("Target").fill("policy");
    const policyChanges = await admin.json<{ total: number }>(
      "GET",
      "/admin/audit?source=admin%3Aadmin&target=policy",
    );
    await expect(count).toHaveText(`${policyChanges.total} records match`);
    await expect(page.getByTestId("audit-row").first()).toContainText("Changed:");
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect(count).toHaveText(/records match/);
    await shoot(page, "audit");

    // A parcel target leads to that parcel in the parcels tab.
    await page.getByLabel("Action").selectOption("parcel.revoke");
    await expect(count).toHaveText("1 record matches");
    await page.getByRole("button", { name: "Show parcel" }).click();
    await expect(page).toHaveURL(/#\/admin\/parcels$/);
    await expect(page.getByLabel("Search")).toHaveValue(revokedId);
    await expect(page.getByTestId("parcel-count")).toHaveText("1 parcel matches");
    await expect(page.getByTestId("parcel-row")).toHaveAttribute("data-id", revokedId);
  });

  test("cleanup reports what it removed", async ({ page }) => {
    await signInAdmin(page, site, "stats");
    const before = await admin.json<{ parcels: { by_state: Record<string, number> } }>(
      "GET",
      "/admin/stats",
    );
    expect(before.parcels.by_state.revoked).toBeGreaterThan(0);
    const answer = page.waitForResponse((r) => r.url().endsWith("/api/v1/admin/cleanup"));
    await page.getByRole("button", { name: "Run cleanup now" }).click();
    const result = (await (await answer).json()) as { parcels: number; files: number };
    expect(result.parcels).toBe(before.parcels.by_state.revoked);
    const counted = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
    await expect(page.getByTestId("cleanup-result")).toHaveText(
      new RegExp(
        `^Cleanup finished: ${counted(result.parcels, "parcel")} and ${counted(result.files, "file")} removed, .+ freed\\.$`,
      ),
    );
    await expect(page.getByTestId("stats-state-revoked")).toContainText("0");
  });

  test("deleting a parcel that was cleaned up meanwhile says so in words", async ({ page }) => {
    await signInAdmin(page, site, "parcels");
    await page.getByLabel("Search").fill("slides-04");
    await expect(page.getByTestId("parcel-count")).toHaveText("1 parcel matches");
    const row = page.getByTestId("parcel-row");
    const id = (await row.getAttribute("data-id")) ?? "";
    // Another administrator deletes it and runs the cleanup while this page shows it.
    await admin.json("POST", `/admin/parcels/${id}/delete`);
    await admin.json("POST", "/admin/cleanup");
    await row.getByRole("button", { name: /^Delete/ }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await expect(page.getByRole("alert")).toHaveText("No such parcel.");
    await expect(page.getByTestId("parcel-count")).toHaveText("0 parcels match");
    await expect(page.getByText("No parcel matches this search.")).toBeVisible();
  });

  test("a session that ends returns to the sign-in form with a note; sign out", async ({
    page,
    context,
  }) => {
    await signInAdmin(page, site, "stats");
    // The overview's own calls must have answered first: one still in flight when the
    // cookie goes would end the session before the click, and the link would be gone.
    await expect(page.getByTestId("stats-total")).toBeVisible();
    await expect(
      page.getByTestId("problems-empty").or(page.getByTestId("problem").first()),
    ).toBeVisible();
    await context.clearCookies();
    await page.getByRole("link", { name: "Parcels", exact: true }).click();
    await expect(page.getByText(/Your session has ended/)).toBeVisible();
    await page.getByLabel("Password").fill(site.adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("parcel-count")).toHaveText(/parcels match/);

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page.getByText("You have signed out.")).toBeVisible();
    await page.reload();
    await expect(page.getByRole("heading", { name: "Administrator sign-in" })).toBeVisible();
    const out = await admin.json<{ items: Array<{ action: string }> }>(
      "GET",
      "/admin/audit?action=admin.logout&page_size=1",
    );
    expect(out.items).toHaveLength(1);
  });

  test("every control has a name, and the table works from the keyboard", async ({ page }) => {
    await signInAdmin(page, site, "stats");
    for (const tab of ["stats", "parcels", "audit", "settings"]) {
      await page.goto(`${site.url}/#/admin/${tab}`);
      if (tab === "parcels") await expect(page.getByTestId("parcel-row")).toHaveCount(10);
      if (tab === "audit") await expect(page.getByTestId("audit-row").first()).toBeVisible();
      if (tab === "settings") await expect(page.getByTestId("runtime-form")).toBeVisible();
      if (tab === "stats") await expect(page.getByTestId("stats-total")).toBeVisible();
      const controls = page.locator(".adm").locator("input, select, button, a");
      const n = await controls.count();
      expect(n).toBeGreaterThan(5);
      for (let i = 0; i < n; i++) await expect(controls.nth(i)).toHaveAccessibleName(/\S/);
    }

    await page.goto(`${site.url}/#/admin/parcels`);
    const row = page.getByTestId("parcel-row").nth(2);
    const files = row.locator("button[aria-expanded]");
    await expect(files).toHaveAccessibleName(/^Files/);
    await files.focus();
    await page.keyboard.press("Enter");
    await expect(files).toHaveAttribute("aria-expanded", "true");
    await expect(files).toHaveAccessibleName(/^Hide files/);
    await expect(page.getByTestId("parcel-file").first()).toBeVisible();
    await page.keyboard.press("Tab");
    const remove = row.getByRole("button", { name: /^Delete/ });
    await expect(remove).toBeFocused();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog");
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(remove).toBeFocused();
    // Nothing was deleted.
    const id = (await row.getAttribute("data-id")) ?? "";
    const still = await admin.json<{ items: Array<{ state: string }> }>(
      "GET",
      `/admin/parcels?q=${id}`,
    );
    expect(["published", "uploading"]).toContain(still.items[0].state);

    // The tabs are links: Enter on one moves to it and focus lands on the new content.
    await page.getByRole("link", { name: "Audit log" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/#\/admin\/audit$/);
    await expect(page.getByRole("heading", { name: "Audit log", level: 2 })).toBeFocused();
  });

  test("on a 360 px phone every tab fits the screen, in English and Chinese", async ({ page }) => {
    // A tablet: the parcels table keeps its columns and scrolls inside its box if it must.
    await page.setViewportSize({ width: 800, height: 900 });
    await signInAdmin(page, site, "parcels");
    await expect(page.getByTestId("parcel-row")).toHaveCount(10);
    await expect(page.getByRole("columnheader", { name: "Expires" })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      800,
    );
    await shoot(page, "tablet-parcels");

    await page.setViewportSize({ width: 360, height: 780 });
    for (const tab of ["stats", "parcels", "audit", "settings"]) {
      await page.goto(`${site.url}/#/admin/${tab}`);
      await expect(page.locator(".adm-panel")).toBeVisible();
      if (tab === "parcels") {
        await expect(page.getByTestId("parcel-row")).toHaveCount(10);
        // Cards on a phone, but still a table with rows and cells for screen readers.
        const table = page.getByRole("table", { name: "Parcels" });
        await expect(table.getByRole("row")).toHaveCount(11);
        await expect(table.getByRole("columnheader", { name: "Expires" })).toHaveCount(1);
        await expect(table.getByRole("row").nth(1).getByRole("cell")).toHaveCount(8);
        await page
          .getByRole("button", { name: /^Files/ })
          .first()
          .click();
      }
      if (tab === "audit") await expect(page.getByTestId("audit-row").first()).toBeVisible();
      if (tab === "settings") await expect(page.getByTestId("runtime-form")).toBeVisible();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `${tab} at 360 px`).toBeLessThanOrEqual(360);
      await shoot(page, `phone-${tab}`);
    }
    await page.getByLabel("Language").selectOption("zh-CN");
    await expect(page.getByRole("heading", { name: "包裹管理" })).toBeVisible();
    await expect(page.getByRole("link", { name: "审计日志" })).toBeVisible();
    await page.getByRole("link", { name: "包裹", exact: true }).click();
    await expect(page.getByTestId("parcel-count")).toHaveText(/匹配 \d+ 个包裹/);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(360);
    await shoot(page, "phone-parcels-zh");
  });
});

test("too many failed sign-ins say how long to wait", async ({ page }) => {
  const other = await startParcelSite();
  try {
    for (let i = 0; i < 5; i++) {
      const r = await other.harness.request("POST", "/admin/login", {
        body: { username: "admin", password: `guess ${i}` },
      });
      expect(r.status).toBe(401);
    }
    await page.goto(`${other.url}/#/admin`);
    await page.getByLabel("Password").fill(other.adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert")).toHaveText(
      /^Too many attempts\. Try again in 1[45] min( \d+ s)?\.$/,
    );
  } finally {
    await other.close();
  }
});
