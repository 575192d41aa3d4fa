import type { z } from "zod";

/**
 * How one route of a service is described in its contract module: what the path, query and
 * body look like, and what each answer carries. The routes parse their input with these
 * schemas, the pages check the answers with them, and the OpenAPI document is made from them,
 * so the three cannot drift apart. Type-only imports here: nothing of zod-openapi reaches a
 * page.
 */
export interface RouteContract<A extends string = string> {
  /**
   * Who may call it (`server/contract/access.ts`): the route table puts this kind's guard in
   * front of the handler. Not part of the API document.
   */
  access: A;
  /** One line, shown as the operation's title in the API document. */
  summary: string;
  /** More words for the API document (who may call it, what it changes). */
  description?: string;
  /** Groups operations in the API document ("Uploads", "Pickup", "Rules"). */
  tag: string;
  /** The path's parameters (`:id` in the route's path), as strings. */
  params?: z.ZodObject;
  /** The query string's members. */
  query?: z.ZodObject;
  /** A JSON request body. */
  body?: z.ZodType;
  /** A request body that is not JSON (file bytes, a backup archive), by media type. */
  rawBody?: string;
  /** Answers by status: a JSON schema, or a media type for bytes and streams. */
  responses: Readonly<Record<number, ResponseContract>>;
}

export interface ResponseContract {
  description: string;
  /** The JSON body of this answer. */
  schema?: z.ZodType;
  /** A body that is not JSON (a file, a ZIP, an event stream, a page), by media type. */
  mediaType?: string;
}

/** Every route of a service, keyed `METHOD /path` as the route table writes them. */
export type ApiContract<A extends string = string> = Readonly<Record<string, RouteContract<A>>>;
