import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

// The layer lint is only worth something while it still fires: these cases lint a few lines as
// if they sat at a given place in the tree, through the project's own eslint.config.js, and
// expect the boundaries rules to refuse (or let through) exactly what the layers say.

const ROOT = resolve(import.meta.dirname, "../..");
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT });
});

/** The boundaries messages ESLint gives `code` placed at `filePath` (relative to the root). */
async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, filePath) });
  return result.messages
    .filter((m) => m.ruleId?.startsWith("boundaries/"))
    .map((m) => `${m.ruleId}: ${m.message}`);
}

/** The import targets below must exist, or an import would be unresolved and prove nothing. */
const TARGETS = [
  "server/parcel/routes/pickup.ts",
  "server/parcel/service.ts",
  "server/http/error-codes.ts",
  "server/http/errors.ts",
  "server/domain-errors.ts",
  "server/contract/route.ts",
  "renderer/shared/lang.ts",
  "server/parcel/repos/parcels.ts",
  "server/db/open.ts",
  "server/parcel/context.ts",
  "server/parcel/domain/ports.ts",
  "server/parcel/http/identity.ts",
];

/** Every message ESLint gives `code` placed at `filePath`, with its rule. */
async function allErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, filePath) });
  return result.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe("layer lint (eslint-plugin-boundaries)", () => {
  it("finds every file the cases import", () => {
    for (const t of TARGETS) expect(existsSync(join(ROOT, t)), t).toBe(true);
  });

  it("names only files that exist (a moved file must not leave its layer silently)", () => {
    // Every quoted path of a single file in the rules' module (patterns with * aside).
    const rules = readFileSync(join(ROOT, "scripts/eslint-layers.js"), "utf8");
    const named = [...rules.matchAll(/"((?:server|main|renderer|preload)\/[^"*?{}]+\.ts)"/g)].map(
      (m) => m[1],
    );
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it("refuses a repository's values in a router or the HTTP layer, which call the domain", async () => {
    const value =
      'import { ParcelsRepo } from "../repos/parcels.js";\nexport const x = ParcelsRepo;\n';
    const refused = /^boundaries\/element-types: routes and the HTTP layer reach repositories/;
    expect(await layerErrors("server/parcel/routes/lint-fixture.ts", value)).toEqual([
      expect.stringMatching(refused),
    ]);
    expect(await layerErrors("server/parcel/http/lint-fixture.ts", value)).toEqual([
      expect.stringMatching(refused),
    ]);
    // A row's type may be named where a view is written.
    const type = 'import type { FileRow } from "../repos/parcels.js";\nexport type X = FileRow;\n';
    expect(await layerErrors("server/parcel/routes/lint-fixture.ts", type)).toEqual([]);
    // The domain does use the repositories.
    expect(await layerErrors("server/parcel/domain/lint-fixture.ts", value)).toEqual([]);
  });

  it("keeps the database driver in the repositories and the database module", async () => {
    const driver = 'import Database from "better-sqlite3";\nexport const x = Database;\n';
    const refused = /^boundaries\/external: only repositories and the database module/;
    for (const place of [
      "server/proxy/domain/lint-fixture.ts",
      "server/parcel/lint-fixture.ts",
      "server/http/lint-fixture.ts",
      "main/lint-fixture.ts",
    ])
      expect(await layerErrors(place, driver), place).toEqual([expect.stringMatching(refused)]);
    expect(await layerErrors("server/parcel/repos/lint-fixture.ts", driver)).toEqual([]);
    expect(await layerErrors("server/db/lint-fixture.ts", driver)).toEqual([]);
  });

  it("lets only the repositories import the database module, not even its types", async () => {
    const refused = /^boundaries\/element-types: only repositories open or name the database/;
    const open = 'import { openDatabase } from "../db/open.js";\nexport const x = openDatabase;\n';
    expect(await layerErrors("server/parcel/lint-fixture.ts", open)).toEqual([
      expect.stringMatching(refused),
    ]);
    const type = 'import type { Db } from "../../db/open.js";\nexport type X = Db;\n';
    expect(await layerErrors("server/proxy/domain/lint-fixture.ts", type)).toEqual([
      expect.stringMatching(refused),
    ]);
    expect(await layerErrors("server/parcel/routes/lint-fixture.ts", type)).toEqual([
      expect.stringMatching(refused),
    ]);
    expect(await layerErrors("server/proxy/store/lint-fixture.ts", type)).toEqual([]);
  });

  it("refuses a repository that imports a router", async () => {
    const errors = await layerErrors(
      "server/parcel/repos/lint-fixture.ts",
      'import { pickupRouter } from "../routes/pickup.js";\nexport const x = pickupRouter;\n',
    );
    expect(errors).toEqual([expect.stringMatching(/^boundaries\/element-types: a repository/)]);
  });

  it("lets a router import another router", async () => {
    const errors = await layerErrors(
      "server/parcel/routes/lint-fixture.ts",
      'import { pickupRouter } from "./pickup.js";\nexport const x = pickupRouter;\n',
    );
    expect(errors).toEqual([]);
  });

  it("refuses a repository that imports the HTTP layer", async () => {
    const errors = await layerErrors(
      "server/proxy/store/lint-fixture.ts",
      'import { HttpError } from "../../http/errors.js";\nexport const x = HttpError;\n',
    );
    expect(errors).toHaveLength(1);
  });

  it("refuses the HTTP layer in domain code, which throws DomainError instead", async () => {
    const errors = await layerErrors(
      "server/proxy/domain/lint-fixture.ts",
      'import { HttpError } from "../../http/errors.js";\nexport const x = HttpError;\n',
    );
    expect(errors).toEqual([expect.stringMatching(/^boundaries\/element-types: .*DomainError/)]);
    const fine = await layerErrors(
      "server/proxy/domain/lint-fixture.ts",
      'import { DomainError } from "../../domain-errors.js";\nexport const x = DomainError;\n',
    );
    expect(fine).toEqual([]);
  });

  it("refuses Express in domain code and the database driver in a router", async () => {
    const domain = await layerErrors(
      "server/parcel/domain/lint-fixture.ts",
      'import type { Request } from "express";\nexport type X = Request;\n',
    );
    expect(domain).toEqual([expect.stringMatching(/^boundaries\/external: .*Express/)]);
    const route = await layerErrors(
      "server/proxy/routes/lint-fixture.ts",
      'import Database from "better-sqlite3";\nexport const x = Database;\n',
    );
    expect(route).toEqual([expect.stringMatching(/^boundaries\/external: .*repositories/)]);
  });

  it("refuses a domain function that takes a request, however the type reaches it", async () => {
    const refused = /^no-restricted-syntax: domain code takes plain values, not a request/;
    // The type named without importing Express (a global, or through another module's type).
    const global = "export function f(req: Request): string {\n  return req.url;\n}\n";
    for (const place of [
      "server/parcel/domain/lint-fixture.ts",
      "server/parcel/cleanup.ts",
      "server/proxy/domain/lint-fixture.ts",
    ])
      expect(await allErrors(place, global), place).toEqual([expect.stringMatching(refused)]);
    const qualified =
      'import type * as e from "./ports.js";\nexport type X = (r: e.Request) => void;\n';
    expect(await allErrors("server/parcel/domain/lint-fixture.ts", qualified)).toEqual([
      expect.stringMatching(refused),
    ]);
    // A router does take one; a domain module may read fetch's Response.
    expect(await allErrors("server/parcel/routes/lint-fixture.ts", global)).toEqual([]);
    const fetched =
      "export async function f(res: Response): Promise<string> {\n  return res.text();\n}\n";
    expect(await allErrors("server/proxy/core/lint-fixture.ts", fetched)).toEqual([]);
  });

  it("gives the parcel domain its ports, not the routes' context or the HTTP layer", async () => {
    const refused = /^no-restricted-imports: .*parcel domain code names its ports/;
    const context =
      'import type { ParcelContext } from "../context.js";\nexport type X = ParcelContext;\n';
    expect(await allErrors("server/parcel/domain/lint-fixture.ts", context)).toEqual([
      expect.stringMatching(refused),
    ]);
    const http = 'import type { Actor } from "../http/identity.js";\nexport type X = Actor;\n';
    const errors = await allErrors("server/parcel/domain/lint-fixture.ts", http);
    expect(errors).toContainEqual(expect.stringMatching(refused));
    const ports =
      'import type { ParcelDomain } from "./ports.js";\nexport type X = ParcelDomain;\n';
    expect(await allErrors("server/parcel/domain/lint-fixture.ts", ports)).toEqual([]);
    // The routes do take the context.
    expect(await allErrors("server/parcel/routes/lint-fixture.ts", context)).toEqual([]);
  });

  it("keeps a contract module to zod and other contract modules", async () => {
    const ok = await layerErrors(
      "server/contract/lint-fixture.ts",
      'import { z } from "zod";\nimport type { ApiContract } from "./route.js";\nexport const x = z.string();\nexport type Y = ApiContract;\n',
    );
    expect(ok).toEqual([]);
    const bad = await layerErrors(
      "server/contract/lint-fixture.ts",
      'import express from "express";\nimport { HttpError } from "../http/errors.js";\nexport const x = [express, HttpError];\n',
    );
    expect(bad).toHaveLength(2);
    const node = await layerErrors(
      "server/contract/lint-fixture.ts",
      'import { readFileSync } from "node:fs";\nexport const x = readFileSync;\n',
    );
    expect(node).toEqual([expect.stringMatching(/^boundaries\/external: .*only zod/)]);
  });

  it("lets the renderer take types, not code, from the error code registry", async () => {
    const typeOnly = await layerErrors(
      "renderer/proxy/lint-fixture.ts",
      'import type { ProxyErrorCode } from "../../server/http/error-codes.js";\nexport type X = ProxyErrorCode;\n',
    );
    expect(typeOnly).toEqual([]);
    const value = await layerErrors(
      "renderer/proxy/lint-fixture.ts",
      'import * as codes from "../../server/http/error-codes.js";\nexport const x = codes;\n',
    );
    expect(value).toEqual([expect.stringMatching(/^boundaries\/element-types: the renderer/)]);
    const service = await layerErrors(
      "renderer/parcel/lint-fixture.ts",
      'import type { ParcelService } from "../../server/parcel/service.js";\nexport type X = ParcelService;\n',
    );
    expect(service).toHaveLength(1);
  });

  it("keeps Electron out of the server and the renderer out of main", async () => {
    const server = await layerErrors(
      "server/parcel/domain/lint-fixture.ts",
      'import { app } from "electron";\nexport const x = app;\n',
    );
    expect(server).toEqual([expect.stringMatching(/^boundaries\/external: .*Electron/)]);
    const main = await layerErrors(
      "main/lint-fixture.ts",
      'import { fill } from "../renderer/shared/lang.js";\nexport const x = fill;\n',
    );
    expect(main).toEqual([expect.stringMatching(/^boundaries\/element-types: main/)]);
  });
});
