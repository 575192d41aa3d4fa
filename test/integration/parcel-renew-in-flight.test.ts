import { afterEach, describe, expect, it } from "vitest";
import type { Harness } from "../helpers/parcel-harness.js";
import { waitFor } from "../helpers/parcel-uploads.js";
import { CookieJar } from "../helpers/parcel-harness.js";
import {
  auditRows,
  openStream,
  parcelRow,
  readAll,
  recipient,
  resolve,
  shareParcel,
  startPickup,
  type Shared,
} from "./parcel-pickup-support.js";

/**
 * A download that starts while its parcel is live and ends after the parcel's expiry: the
 * outcome must not depend on whether a request (which runs the expiry sweep) came in between.
 * A completed body renews by the contract's formula (max(old, done) lets a body that completes
 * after the old expiry renew); a body cut short leaves the parcel to expire as usual; and a
 * download in flight never keeps a parcel past sent_at + renew_cap_days.
 */

let h: Harness;
afterEach(async () => h?.close(true));

const DAY = 86400;
// Far more than the sockets on both sides buffer: the body is held while the client reads nothing.
const SIZE = 32 * 1024 * 1024;
const fileUrl = (id: string) => `/pickup/files/${id}/download`;

/** A published parcel of one big file, and a download of it started and held after its headers. */
async function heldDownload(manifest: Record<string, unknown>) {
  h = await startPickup();
  const p = await shareParcel(h, { "big.bin": SIZE }, { downloads: 5, ...manifest });
  const jar = await recipient(h, p.code);
  const stream = await openStream(h, jar, fileUrl(p.files[0].id));
  expect(stream.res.statusCode).toBe(200);
  expect(h.service.ctx.activity.downloadsActive).toBe(1);
  return { p, ...stream };
}

/** Any request runs the expiry sweep first. */
async function poke(): Promise<void> {
  expect((await h.request("GET", "/policy")).status).toBe(200);
}

/** The parcel's state, read back through the repository (each download took one of 5). */
function expectState(p: Shared, state: string, downloadsLeft = 4): void {
  expect(parcelRow(h, p.id)).toMatchObject({ state, downloads_left: downloadsLeft });
}

describe("a download in flight across the parcel's expiry", () => {
  it("renews on completion even when a request ran the expiry sweep during the download", async () => {
    const { p, res } = await heldDownload({ days: 1 });
    const old = p.publish.json.expires_at as number;
    h.clock.advance((DAY + 60) * 1000);
    await poke();
    // Still in flight: the sweep leaves the parcel to the download's outcome.
    expect(h.service.ctx.activity.downloadsActive).toBe(1);
    expectState(p, "published");
    // Meanwhile the parcel is live for everyone: another recipient can resolve and download.
    const other = await recipient(h, p.code);
    const second = await h.request("GET", fileUrl(p.files[0].id), { jar: other });
    expect(second.status).toBe(200);
    expect(second.body.length).toBe(SIZE);
    await waitFor(() => h.service.ctx.activity.downloadsActive === 1, 10_000);
    const done = h.service.ctx.now();
    expect(done).toBeGreaterThan(old);
    // default mode: min(max(old, done) + 3 d, sent_at + 30 d), done > old
    expect(parcelRow(h, p.id).expires_at).toBe(done + 3 * DAY);
    const body = await readAll(res);
    expect(body.length).toBe(SIZE);
    await waitFor(() => h.service.ctx.activity.downloadsActive === 0, 10_000);
    // The held download renews in turn, from the expiry the second one gave.
    expectState(p, "published", 3);
    expect(parcelRow(h, p.id).expires_at).toBe(done + 6 * DAY);
    expect(auditRows(h, "download.complete").map((a) => a.detail)).toMatchObject([
      { expires_at: done + 3 * DAY, bytes: SIZE },
      { expires_at: done + 6 * DAY, bytes: SIZE },
    ]);
    await poke();
    expectState(p, "published", 3);
    expect((await resolve(h, new CookieJar(), p.code)).status).toBe(200);
  });

  it("expires at the next sweep when the download is cut short", async () => {
    const { p, req, res } = await heldDownload({ days: 1 });
    h.clock.advance((DAY + 60) * 1000);
    await poke();
    expectState(p, "published");
    await new Promise<void>((ok) => {
      res.once("data", () => ok());
      res.resume();
    });
    req.destroy();
    await waitFor(() => h.service.ctx.activity.downloadsActive === 0, 10_000);
    await poke();
    expectState(p, "expired");
    expect(auditRows(h, "download.complete")).toHaveLength(0);
    const again = await resolve(h, new CookieJar(), p.code);
    expect(again.status).toBe(410);
    expect(again.json.code).toBe("parcel.expired");
  });

  it("never keeps a parcel past sent_at + renew_cap_days, however long the download runs", async () => {
    const { p, res } = await heldDownload({ days: 2 });
    const sent = parcelRow(h, p.id).sent_at as number;
    h.service.ctx.setPolicy({ ...h.service.ctx.policy(), renew_cap_days: 3 });
    h.clock.advance((3 * DAY + 60) * 1000);
    await poke();
    // Past the cap no renewal could bring it back: the sweep ends it while the body is held.
    expect(h.service.ctx.activity.downloadsActive).toBe(1);
    expectState(p, "expired");
    expect(parcelRow(h, p.id).expires_at).toBe(sent + 2 * DAY);
    expect((await readAll(res)).length).toBe(SIZE);
    await waitFor(() => h.service.ctx.activity.downloadsActive === 0, 10_000);
    expectState(p, "expired");
    expect(parcelRow(h, p.id).expires_at).toBe(sent + 2 * DAY);
  });

  it("does not hold a parcel whose renewal is off", async () => {
    const { p, res } = await heldDownload({ days: 1, renew: false });
    h.clock.advance((DAY + 60) * 1000);
    await poke();
    expectState(p, "expired");
    await readAll(res);
    await waitFor(() => h.service.ctx.activity.downloadsActive === 0, 10_000);
    expectState(p, "expired");
  });
});
