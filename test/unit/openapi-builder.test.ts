import { z } from "zod";
import { describe, expect, it } from "vitest";
import type { ApiContract } from "../../server/contract/route.js";
import { openApiDocument, openApiPath } from "../../server/http/openapi.js";

const contract: ApiContract = {
  "GET /things/:id": {
    access: "open",
    summary: "Read a thing",
    tag: "Things",
    params: z.object({ id: z.string() }),
    responses: { 200: { description: "The thing", schema: z.object({ name: z.string() }) } },
  },
  "PUT /things/:id/bytes": {
    access: "open",
    summary: "Store bytes",
    tag: "Things",
    params: z.object({ id: z.string() }),
    rawBody: "application/octet-stream",
    responses: { 204: { description: "Stored" } },
  },
};

describe("the OpenAPI document", () => {
  it("writes Express parameters the OpenAPI way", () => {
    expect(openApiPath("/uploads/:id/files/:file")).toBe("/uploads/{id}/files/{file}");
  });

  it("has every route of the contract with its parameters, bodies and answers", async () => {
    const doc = (await openApiDocument(
      { title: "T", version: "1", description: "d" },
      contract,
    )) as {
      openapi: string;
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(["/things/{id}", "/things/{id}/bytes"]);
    const get = doc.paths["/things/{id}"]!.get!;
    expect(get.summary).toBe("Read a thing");
    expect(get.parameters).toEqual([
      expect.objectContaining({ in: "path", name: "id", required: true }),
    ]);
    expect(JSON.stringify(get.responses)).toContain('"name"');
    const put = doc.paths["/things/{id}/bytes"]!.put!;
    expect(Object.keys((put.requestBody as { content: object }).content)).toEqual([
      "application/octet-stream",
    ]);
  });
});
