import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDesktopInbox, defaultInboxFolder } from "../../main/app/desktop-inbox.js";
import type { HostInfo } from "../../main/host/host-status.js";
import type { InboxKeeper } from "../../main/inbox/keeper.js";
import type { InboxNotification } from "../../main/inbox/words.js";
import { signedIn } from "../../main/operator/outcomes.js";
import { parcelLogin } from "../../main/operator/service-http.js";
import type { ServiceSignIn } from "../../main/operator/types.js";
import { DESKTOP_DEFAULTS, type DesktopSettings } from "../../main/settings/schema.js";
import { CookieJar, startParcel, type Harness } from "../helpers/parcel-harness.js";
import { bearer } from "../helpers/parcel-uploads.js";

/**
 * The desktop's side of the inbox in Node, against the real parcel service on a real socket:
 * the keeper opens the inbox as the operator (signed in over HTTP as the app signs in), phones
 * deliver through the inbox routes, and the keeper saves every delivery into the chosen folder
 * through the ordinary pickup routes: exact bytes, names that never overwrite (`photo (1).jpg`),
 * one notification per delivery, nothing fetched twice (also after a restart).
 */

const PASSWORD = "desktop-inbox-admin-1";
let h: Harness;
let dir: string;
let folder: string;
let session: ServiceSignIn | null;
let notes: InboxNotification[];
let log: string[];
let settings: DesktopSettings;

function hostInfo(): HostInfo {
  return {
    state: "ready",
    dataDir: h.dataDir,
    parcel: { url: h.origin, httpsUrl: null, entries: [h.origin], adminUser: "admin" },
    proxy: null,
    core: null,
    error: null,
    errorCode: null,
  };
}

async function signIn(): Promise<ServiceSignIn> {
  const http = { fetch, timeoutMs: 10_000, nowMs: Date.now };
  const answer = await parcelLogin(http, h.origin, "admin", PASSWORD);
  expect(answer.status).toBe(200);
  return signedIn(answer, false, true);
}

function keeper(): InboxKeeper {
  return createDesktopInbox({
    info: hostInfo,
    session: () => session,
    signInAgain: async () => {
      session = await signIn();
      return true;
    },
    log: (line) => void log.push(line),
    dataDir: dir,
    downloadsDir: join(dir, "Downloads"),
    settings: () => settings,
    language: () => "en",
    notify: (n) => void notes.push(n),
    changed: () => {},
    retryMs: 50,
  });
}

/** A phone opens the inbox by its code and delivers `files` (name -> bytes). */
async function deliver(code: string, files: Array<[string, Buffer]>): Promise<string> {
  const jar = new CookieJar();
  expect((await h.request("POST", "/inbox/resolve", { jar, body: { code } })).status).toBe(200);
  const created = await h.request("POST", "/uploads", {
    jar,
    body: { files: files.map(([name, data]) => ({ name, size: data.length })), inbox: true },
  });
  expect(created.status, created.text).toBe(201);
  const auth = bearer(created.json.manage_token as string);
  for (const [i, f] of (created.json.files as Array<{ id: string }>).entries()) {
    const put = await h.request("PUT", `/uploads/${created.json.id}/files/${f.id}`, {
      jar,
      raw: files[i][1],
      headers: auth,
    });
    expect(put.status, put.text).toBe(200);
  }
  const published = await h.request("POST", `/uploads/${created.json.id}/publish`, {
    jar,
    headers: auth,
  });
  expect(published.json.delivered).toBe(true);
  // Deliveries are told apart by when they came.
  h.clock.advance(5_000);
  return created.json.id as string;
}

beforeEach(async () => {
  h = await startParcel({ adminUser: "admin", adminPassword: PASSWORD, computerName: "Study PC" });
  dir = mkdtempSync(join(tmpdir(), "gh-desktop-inbox-"));
  folder = join(dir, "Received");
  settings = { ...DESKTOP_DEFAULTS, inboxFolder: folder };
  session = await signIn();
  notes = [];
  log = [];
});

afterEach(async () => {
  await h.close(true);
  rmSync(dir, { recursive: true, force: true });
});

describe("the desktop's inbox", () => {
  it("saves three deliveries with their exact bytes, collision-safe names and one notification each", async () => {
    const inbox = keeper();
    const opened = await inbox.open(30, null);
    expect(opened.open).toBe(true);
    if (!opened.open) return;
    // The operator's folder already has a photo.jpg: it is never overwritten.
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "photo.jpg"), "the operator's own photo");

    const first = [randomBytes(300_000), randomBytes(1234)];
    const second = randomBytes(200_001);
    const third = [randomBytes(99_999), randomBytes(10)];
    const code = opened.code;
    const ids = [
      await deliver(code, [
        ["photo.jpg", first[0]],
        ["notes.txt", first[1]],
      ]),
      await deliver(code, [["photo.jpg", second]]),
      await deliver(code, [
        ["photo.jpg", third[0]],
        ["notes.txt", third[1]],
      ]),
    ];
    // Two calls at once (two events close together) save each delivery once.
    await Promise.all([inbox.sync(), inbox.sync()]);

    const read = (name: string) => readFileSync(join(folder, name));
    expect(read("photo.jpg").toString()).toBe("the operator's own photo");
    expect(read("photo (1).jpg").equals(first[0])).toBe(true);
    expect(read("notes.txt").equals(first[1])).toBe(true);
    expect(read("photo (2).jpg").equals(second)).toBe(true);
    expect(read("photo (3).jpg").equals(third[0])).toBe(true);
    expect(read("notes (1).txt").equals(third[1])).toBe(true);
    // Nothing half-written or temporary is left beside them.
    expect(readdirSync(folder).sort()).toEqual([
      "notes (1).txt",
      "notes.txt",
      "photo (1).jpg",
      "photo (2).jpg",
      "photo (3).jpg",
      "photo.jpg",
    ]);

    expect(notes.map((n) => n.deliveryId)).toEqual(ids);
    for (const n of notes) expect(n.title).toBe("Received from 127.0.0.1");
    expect(notes[0].body).toBe(`2 files are saved in ${folder}: photo.jpg, notes.txt.`);
    expect(notes[1].body).toBe(`photo.jpg is saved in ${folder}.`);
    expect(log).toEqual([]);

    // "Show in folder" finds where each delivery went; the list says every one is saved.
    expect(inbox.savedPath(ids[1])).toBe(join(folder, "photo (2).jpg"));
    const view = await inbox.view();
    expect(view.available).toBe(true);
    expect(view.folder).toBe(folder);
    expect(view.deliveries.map((d) => [d.id, d.status])).toEqual(
      [...ids].reverse().map((id) => [id, "saved"]),
    );

    // Again, and after a restart of the app (a new keeper on the same list): nothing twice.
    await inbox.sync();
    await keeper().sync();
    expect(notes).toHaveLength(3);
    expect(readdirSync(folder)).toHaveLength(6);
  });

  it("catches up after a 401 (the session ended) and saves into Downloads/Gatehouse by default", async () => {
    settings = { ...DESKTOP_DEFAULTS };
    const inbox = keeper();
    const opened = await inbox.open(10, null);
    if (!opened.open) throw new Error("the inbox did not open");
    const data = randomBytes(4096);
    await deliver(opened.code, [["scan.pdf", data]]);
    // A password change elsewhere ended the operator's session: the keeper signs in again.
    await h.request("POST", "/admin/logout", {
      headers: { cookie: session?.state === "signed-in" ? cookieOf(session) : "" },
    });
    await inbox.sync();
    const target = defaultInboxFolder(join(dir, "Downloads"));
    expect(target).toBe(join(dir, "Downloads", "Gatehouse"));
    expect(readFileSync(join(target, "scan.pdf")).equals(data)).toBe(true);
    expect(notes).toHaveLength(1);
  });

  it("keeps a delivery it could not save, says so, and saves it later by itself", async () => {
    // The chosen "folder" is a file: nothing can be written there.
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "not-a-folder"), "x");
    settings = { ...DESKTOP_DEFAULTS, inboxFolder: join(dir, "not-a-folder") };
    const inbox = keeper();
    const opened = await inbox.open(10, null);
    if (!opened.open) throw new Error("the inbox did not open");
    const data = randomBytes(2048);
    const id = await deliver(opened.code, [["later.bin", data]]);
    await inbox.sync();
    expect(notes).toEqual([]);
    expect(log.some((l) => /could not be saved/.test(l))).toBe(true);
    expect((await inbox.view()).deliveries.map((d) => d.status)).toEqual(["failed"]);
    // The operator picks a usable folder; the next look (a timer, no new delivery) saves it.
    settings = { ...DESKTOP_DEFAULTS, inboxFolder: folder };
    await expect.poll(() => notes.length, { timeout: 5000 }).toBe(1);
    expect(notes[0].deliveryId).toBe(id);
    expect(readFileSync(join(folder, "later.bin")).equals(data)).toBe(true);
  });

  it("closes the inbox: its code stops working at once", async () => {
    const inbox = keeper();
    const opened = await inbox.open(10, null);
    if (!opened.open) throw new Error("the inbox did not open");
    await inbox.close();
    expect(inbox.status).toEqual({ open: false });
    const jar = new CookieJar();
    const r = await h.request("POST", "/inbox/resolve", { jar, body: { code: opened.code } });
    expect(r.status).toBe(404);
  });
});

function cookieOf(s: Extract<ServiceSignIn, { state: "signed-in" }>): string {
  return s.cookies.map((c) => `${c.name}=${c.value}`).join("; ");
}
