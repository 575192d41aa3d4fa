import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { readUsage } from "../../server/parcel/domain/admission.js";
import { auditOf, startParcel, type Harness } from "../helpers/parcel-harness.js";
import {
  bearer,
  createUpload,
  putBytes,
  tempFiles,
  waitFor,
  type Created,
} from "../helpers/parcel-uploads.js";
import { putHead } from "../helpers/raw-http.js";

let h: Harness;
afterEach(async () => h?.close(true));

const parcelRow = (id: string) => h.repos.parcels.byId(id)!;
const fileState = (id: string) => h.repos.parcels.file(id)?.state;

interface Trickled {
  status: number | null;
  /** Body bytes written before the service closed the connection. */
  sent: number;
  ms: number;
}

/**
 * A PUT whose body is written `piece` bytes every `everyMs` (never more than `total`), over a
 * raw socket; ends when the service closes the connection. `onStart` runs once the service
 * is receiving.
 */
function trickle(
  up: Created,
  opts: { piece: number; everyMs: number; total: number; onStart?: () => void },
): Promise<Trickled> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(h.port, "127.0.0.1");
    let text = "";
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on("error", () => undefined);
    socket.on("data", (b: Buffer) => (text += b.toString("latin1")));
    socket.on("close", () => {
      clearInterval(timer);
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : null, sent, ms: Date.now() - started });
    });
    socket.on("connect", () => {
      socket.write(
        putHead(h.port, `/uploads/${up.id}/files/${up.files[0].id}`, {
          Authorization: `Bearer ${up.manage_token}`,
          "Content-Length": up.files[0].size,
          // So a successful answer also ends the exchange.
          Connection: "close",
        }),
      );
      let told = false;
      timer = setInterval(() => {
        if (!told && h.service.ctx.activity.uploadsActive > 0) {
          told = true;
          opts.onStart?.();
        }
        if (sent >= opts.total || socket.destroyed) return;
        const n = Math.min(opts.piece, opts.total - sent);
        socket.write(Buffer.alloc(n, 1));
        sent += n;
      }, opts.everyMs);
    });
  });
}

describe("slow and stalled uploads", () => {
  it("ends a PUT that moves less than the floor, with the connection closed; the file is failed and retryable", async () => {
    h = await startParcel({ uploadFloor: { bytes: 1000, windowMs: 300 } });
    const up = await createUpload(h, { slow: 100_000 });
    // 20 bytes every 30 ms: about 200 bytes per window, a fifth of the floor.
    const r = await trickle(up, { piece: 20, everyMs: 30, total: 100_000 });
    expect(r.status).toBe(408);
    expect(r.sent).toBeGreaterThan(0);
    expect(r.ms).toBeLessThan(3000);
    await waitFor(() => h.service.ctx.activity.uploadsActive === 0);
    expect(fileState(up.files[0].id)).toBe("failed");
    expect(tempFiles(h)).toEqual([]);
    const [audit] = auditOf(h, "upload.fail");
    expect(audit.detail).toMatchObject({ reason: "slow" });
    // The session and its reservation stay; the whole file can be sent again.
    expect(parcelRow(up.id)).toMatchObject({ state: "uploading", reserved_bytes: 100_000 });
    const retry = await putBytes(h, up, 0, Buffer.alloc(100_000, 3));
    expect(retry.status).toBe(200);
    expect(retry.json.state).toBe("ready");
  });

  it("ends a PUT that sends its head and then nothing", async () => {
    h = await startParcel({ uploadFloor: { bytes: 1, windowMs: 200 } });
    const up = await createUpload(h, { stalled: 10 });
    const r = await trickle(up, { piece: 0, everyMs: 50, total: 0 });
    expect(r.status).toBe(408);
    expect(r.ms).toBeLessThan(3000);
    await waitFor(() => h.service.ctx.activity.uploadsActive === 0);
    expect(fileState(up.files[0].id)).toBe("failed");
  });

  it("keeps a slow PUT that stays above the floor", async () => {
    h = await startParcel({ uploadFloor: { bytes: 100, windowMs: 200 } });
    const up = await createUpload(h, { steady: 3000 });
    // 100 bytes every 20 ms: 1000 bytes per window, ten times the floor.
    const r = await trickle(up, { piece: 100, everyMs: 20, total: 3000 });
    expect(r.status).toBe(200);
    expect(fileState(up.files[0].id)).toBe("ready");
  });
});

describe("session deadline during a running PUT", () => {
  it("aborts the PUT at expires_at, revokes the session and releases its reservation for new uploads", async () => {
    h = await startParcel({ uploadFloor: { bytes: 1, windowMs: 200 } });
    const ctx = h.service.ctx;
    ctx.setRuntime({ ...ctx.runtime(), data_budget_bytes: 100_000 });
    const up = await createUpload(h, { big: 100_000 });
    let refusedBefore = 0;
    const r = await trickle(up, {
      piece: 50,
      everyMs: 20,
      total: 100_000,
      onStart: () => {
        void (async () => {
          // The running session holds the whole budget...
          const before = await h.request("POST", "/uploads", {
            body: { files: [{ name: "other", size: 50_000 }] },
          });
          refusedBefore = before.status;
          // ...until its deadline passes on the service's clock.
          h.clock.advance(3601 * 1000);
        })();
      },
    });
    expect(refusedBefore).toBe(507);
    expect(r.status).toBe(409);
    expect(r.ms).toBeLessThan(3000);
    await waitFor(() => ctx.activity.uploadsActive === 0);
    expect(parcelRow(up.id)).toMatchObject({ state: "revoked", reserved_bytes: 0 });
    expect(fileState(up.files[0].id)).toBe("failed");
    expect(tempFiles(h)).toEqual([]);
    const after = await h.request("POST", "/uploads", {
      body: { files: [{ name: "other", size: 50_000 }] },
    });
    expect(after.status).toBe(201);
  });

  it("stops a running PUT when the session is revoked by its owner", async () => {
    h = await startParcel({ uploadFloor: { bytes: 1, windowMs: 200 } });
    const up = await createUpload(h, { big: 100_000 });
    let revoked = 0;
    const r = await trickle(up, {
      piece: 50,
      everyMs: 20,
      total: 100_000,
      onStart: () => {
        void h
          .request("POST", `/parcels/${up.id}/revoke`, { headers: bearer(up.manage_token) })
          .then((x) => (revoked = x.status));
      },
    });
    expect(revoked).toBe(200);
    expect(r.status).toBe(409);
    await waitFor(() => h.service.ctx.activity.uploadsActive === 0);
    expect(tempFiles(h)).toEqual([]);
  });

  it("never counts a session past its deadline in admission, even before a sweep revoked it", async () => {
    h = await startParcel();
    const ctx = h.service.ctx;
    await createUpload(h, { a: 700, b: 300 });
    const live = readUsage(ctx.repos.sessions, ctx.diskFree(), ctx.now());
    expect(live).toMatchObject({ reservedBytes: 1000, files: 2 });
    h.clock.advance(3600 * 1000);
    const expired = readUsage(ctx.repos.sessions, ctx.diskFree(), ctx.now());
    expect(expired).toMatchObject({ reservedBytes: 0, files: 0 });
  });
});
