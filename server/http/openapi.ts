import type {
  ZodOpenApiOperationObject,
  ZodOpenApiPathsObject,
  ZodOpenApiResponsesObject,
} from "zod-openapi";
import type { RequestHandler } from "express";
import { z } from "zod";
import type { ApiContract, RouteContract } from "../contract/route.js";

/** The error body every failed call answers with. */
const ErrorBody = z
  .object({
    error: z.string().meta({ description: "The failure as one English sentence" }),
    code: z.string().meta({ description: "A stable name of the failure (`area.reason`)" }),
    params: z
      .record(z.string(), z.union([z.string(), z.number()]))
      .optional()
      .meta({ description: "The values the sentence names" }),
  })
  .loose()
  .meta({ id: "Error" });

export interface ApiInfo {
  title: string;
  version: string;
  description: string;
}

/** `/uploads/:id/files/:file` as OpenAPI writes it: `/uploads/{id}/files/{file}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}

function operation(route: RouteContract): ZodOpenApiOperationObject {
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, answer] of Object.entries(route.responses)) {
    const media = answer.schema
      ? { "application/json": { schema: answer.schema } }
      : answer.mediaType
        ? { [answer.mediaType]: {} }
        : undefined;
    responses[status as `${1 | 2 | 3 | 4 | 5}${string}`] = {
      description: answer.description,
      ...(media ? { content: media } : {}),
    };
  }
  responses.default = {
    description: "A failure, with its code and the values its sentence names",
    content: { "application/json": { schema: ErrorBody } },
  };
  const requestBody = route.body
    ? { content: { "application/json": { schema: route.body } } }
    : route.rawBody
      ? { content: { [route.rawBody]: {} } }
      : undefined;
  return {
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    ...(route.params || route.query
      ? {
          requestParams: {
            ...(route.params ? { path: route.params } : {}),
            ...(route.query ? { query: route.query } : {}),
          },
        }
      : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of one service, made from its contract module. Paths are below
 * the service's `/api/v1`, which is the document's server. zod-openapi is loaded on the first
 * call, not at start: few clients ever ask for the document and the module is large.
 */
export async function openApiDocument(info: ApiInfo, contract: ApiContract): Promise<object> {
  const { createDocument } = await import("zod-openapi");
  const paths: ZodOpenApiPathsObject = {};
  for (const [key, route] of Object.entries(contract)) {
    const [method, path] = key.split(" ") as [string, string];
    const at = openApiPath(path);
    paths[at] = { ...paths[at], [method.toLowerCase()]: operation(route) };
  }
  return createDocument({
    openapi: "3.1.0",
    info: { ...info },
    servers: [{ url: "/api/v1" }],
    paths,
  });
}

/**
 * `GET /openapi.json`: the service's API document, made from its contract on the first ask
 * and kept (it cannot change while the service runs). It describes routes and holds no data.
 */
export function serveOpenApi(info: ApiInfo, contract: ApiContract): RequestHandler {
  let document: Promise<object> | null = null;
  return async (_req, res) => {
    document ??= openApiDocument(info, contract);
    res.json(await document);
  };
}
