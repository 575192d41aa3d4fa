import { describe, expect, it } from "vitest";
import { ApiError } from "../../renderer/shared/api-client.js";
import { matchFiles, type Remembered } from "../../renderer/parcel/send/remembered.js";
import {
  backoffMs,
  isDrop,
  mismatchOffset,
  RESUME_TIMING,
} from "../../renderer/parcel/send/resumable.js";

describe("resuming a dropped upload", () => {
  it("waits 1 s, 2 s, 4 s … and never more than 30 s between attempts", () => {
    const waits = Array.from({ length: 8 }, (_, n) => backoffMs(n));
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(backoffMs(1000)).toBe(30_000);
    // Attempts stop after about two minutes without a byte getting through.
    expect(RESUME_TIMING.giveUpMs).toBe(120_000);
  });

  it("treats a lost connection, a timeout, a gateway in between and a busy file as a drop", () => {
    expect(isDrop(new ApiError(0, "unreachable"))).toBe(true);
    expect(isDrop(new ApiError(408, "slow", { code: "upload.slow" }))).toBe(true);
    expect(isDrop(new ApiError(502, "bad gateway"))).toBe(true);
    expect(isDrop(new ApiError(504, "timeout"))).toBe(true);
    expect(isDrop(new ApiError(409, "busy", { code: "upload.busy" }))).toBe(true);
  });

  it("does not retry what the service refused: an ended session, a limit, a full disk", () => {
    expect(isDrop(new ApiError(409, "closed", { code: "upload.closed" }))).toBe(false);
    expect(isDrop(new ApiError(429, "limit", { code: "upload.daily_limit" }))).toBe(false);
    expect(isDrop(new ApiError(507, "full", { code: "upload.disk_full" }))).toBe(false);
    expect(isDrop(new ApiError(401, "who"))).toBe(false);
    expect(isDrop(new Error("not an answer"))).toBe(false);
  });

  it("goes on from the offset a 409 offset mismatch names, and only from that", () => {
    const mismatch = (params: unknown) =>
      new ApiError(409, "mismatch", { code: "upload.offset_mismatch", params });
    expect(mismatchOffset(mismatch({ offset: 2_097_152 }))).toBe(2_097_152);
    expect(mismatchOffset(mismatch({ offset: "4096" }))).toBe(4096);
    expect(mismatchOffset(mismatch({ offset: -1 }))).toBeNull();
    expect(mismatchOffset(mismatch({}))).toBeNull();
    expect(mismatchOffset(new ApiError(409, "busy", { code: "upload.busy" }))).toBeNull();
  });
});

describe("choosing the files of an interrupted upload again", () => {
  const when = Date.UTC(2026, 10, 1);
  const upload: Remembered = {
    id: "p1",
    expiresAt: 2_000_000_000,
    files: [
      {
        fileId: "a",
        name: "video.mp4",
        fileName: "video.mp4",
        size: 10,
        lastModified: when,
        done: false,
      },
      {
        fileId: "b",
        name: "photo.jpg",
        fileName: "photo.jpg",
        size: 5,
        lastModified: when,
        done: true,
      },
      {
        fileId: "c",
        name: "notes (2).txt",
        fileName: "notes.txt",
        size: 3,
        lastModified: when,
        done: false,
      },
    ],
  };
  const file = (name: string, size: number, lastModified = when) =>
    new File([new Uint8Array(size)], name, { lastModified });

  it("recognises a file by its name, size and modification time", () => {
    const { matched, refused } = matchFiles(upload, [file("video.mp4", 10), file("notes.txt", 3)]);
    expect([...matched.keys()].sort()).toEqual(["a", "c"]);
    expect(refused).toEqual([]);
  });

  it("refuses a file that differs in size, time or name", () => {
    const { matched, refused } = matchFiles(upload, [
      file("video.mp4", 11),
      file("video.mp4", 10, when + 1000),
      file("other.mp4", 10),
    ]);
    expect(matched.size).toBe(0);
    expect(refused.map((f) => `${f.name}:${f.size}`)).toEqual([
      "video.mp4:11",
      "video.mp4:10",
      "other.mp4:10",
    ]);
  });

  it("neither needs nor refuses a file the service already stored", () => {
    const { matched, refused } = matchFiles(upload, [file("photo.jpg", 5)]);
    expect(matched.size).toBe(0);
    expect(refused).toEqual([]);
  });
});
