import { describe, expect, it } from "vitest";
import {
  makeStamp,
  parseStamp,
  staleReason,
  type FileProbe,
  type FileState,
} from "../../scripts/build-stamp.js";
import { sourceOf } from "../../scripts/build-renderer-if-changed.js";

/** An in-memory tree: path -> content and modification time; counts the hashing done. */
function tree(files: Record<string, { text: string; mtimeMs: number }>): FileProbe & {
  hashed: string[];
} {
  const hashed: string[] = [];
  return {
    hashed,
    stat: (rel): FileState | null =>
      files[rel] ? { size: files[rel].text.length, mtimeMs: files[rel].mtimeMs } : null,
    sha256: (rel) => {
      hashed.push(rel);
      return `hash-of-${files[rel].text}`;
    },
  };
}

const built = {
  "renderer/parcel/main.tsx": { text: "render()", mtimeMs: 1000 },
  "renderer/vite.config.ts": { text: "config", mtimeMs: 1000 },
  "server/contract/time-units.ts": { text: "units", mtimeMs: 1000 },
  "package-lock.json": { text: "lock-v1", mtimeMs: 1000 },
};
const listed = ["renderer/parcel/main.tsx", "renderer/vite.config.ts", "package-lock.json"];
const stamp = makeStamp([...listed, "server/contract/time-units.ts"], tree(built));

describe("renderer build stamp", () => {
  it("skips the build when every recorded input is as recorded, without hashing any", () => {
    const probe = tree(built);
    expect(staleReason(stamp, listed, probe, true)).toBeNull();
    expect(probe.hashed).toEqual([]);
  });

  it("builds when there is no stamp, an unreadable one, or no build output", () => {
    expect(staleReason(null, listed, tree(built), true)).toBe("no record of a previous build");
    expect(parseStamp("{not json")).toBeNull();
    expect(parseStamp(JSON.stringify({ version: 2, files: {} }))).toBeNull();
    expect(parseStamp(JSON.stringify(stamp))).toEqual(stamp);
    expect(staleReason(stamp, listed, tree(built), false)).toBe("the build output is missing");
  });

  it("builds when a source's content changed, inside renderer/ or a shared module it imports", () => {
    for (const rel of ["renderer/parcel/main.tsx", "server/contract/time-units.ts"]) {
      const changed = { ...built, [rel]: { text: "edited!!", mtimeMs: 2000 } };
      expect(staleReason(stamp, listed, tree(changed), true)).toBe(`${rel} changed`);
    }
  });

  it("builds when the lock file changed even at the same size", () => {
    const changed = { ...built, "package-lock.json": { text: "lock-v2", mtimeMs: 2000 } };
    expect(staleReason(stamp, listed, tree(changed), true)).toBe("package-lock.json changed");
  });

  it("does not build for a file that is newer but hashes the same, and hashes only that one", () => {
    const touched = { ...built, "renderer/vite.config.ts": { text: "config", mtimeMs: 5000 } };
    const probe = tree(touched);
    expect(staleReason(stamp, listed, probe, true)).toBeNull();
    expect(probe.hashed).toEqual(["renderer/vite.config.ts"]);
    // The refreshed stamp records the new time, so the next start hashes nothing.
    const refreshed = makeStamp(Object.keys(stamp.files), probe);
    expect(refreshed.files["renderer/vite.config.ts"].mtimeMs).toBe(5000);
    expect(staleReason(refreshed, listed, tree(touched), true)).toBeNull();
  });

  it("builds when a file under renderer/ is new or a recorded one is gone", () => {
    const added = { ...built, "renderer/parcel/new.tsx": { text: "x", mtimeMs: 3000 } };
    expect(staleReason(stamp, [...listed, "renderer/parcel/new.tsx"], tree(added), true)).toBe(
      "renderer/parcel/new.tsx is new",
    );
    const { ["server/contract/time-units.ts"]: _gone, ...rest } = built;
    expect(staleReason(stamp, listed, tree(rest), true)).toBe(
      "server/contract/time-units.ts is gone",
    );
  });

  it("records only this repository's own sources among the modules the bundler loaded", () => {
    const root = "/repo";
    expect(sourceOf(root, "/repo/renderer/parcel/main.tsx")).toBe("renderer/parcel/main.tsx");
    expect(sourceOf(root, "/repo/renderer/parcel/app.css?direct")).toBe("renderer/parcel/app.css");
    expect(sourceOf(root, "/repo/server/contract/route.ts")).toBe("server/contract/route.ts");
    expect(sourceOf(root, "/repo/node_modules/react/index.js")).toBeNull();
    expect(sourceOf(root, "/repo/renderer/dist/assets/x.js")).toBeNull();
    expect(sourceOf(root, "\0vite/preload-helper.js")).toBeNull();
    expect(sourceOf(root, "/elsewhere/file.ts")).toBeNull();
  });
});
