import type { Request, Response } from "express";
import type { z } from "zod";
import type { RouteContract } from "../contract/route.js";
import { jsonObject, optionalObject, parseOr400 } from "./validate.js";

/** What the handler of entry `E` reads: its path parameters, query and body, as parsed. */
export interface RouteInput<E> {
  readonly params: E extends { params: infer P extends z.ZodType } ? z.output<P> : object;
  readonly query: E extends { query: infer Q extends z.ZodType } ? z.output<Q> : object;
  readonly body: E extends { body: infer B extends z.ZodType } ? z.output<B> : undefined;
}

/** The JSON answer of entry `E`: what its success response's schema accepts. */
export type AnswerOf<E> = E extends { responses: infer R }
  ? {
      [S in keyof R]: S extends 200 | 201
        ? R[S] extends { schema: infer T extends z.ZodType }
          ? z.input<T>
          : never
        : never;
    }[keyof R]
  : never;

/** A route's handler: its input parsed with the entry's schemas, its answer the entry's. */
export type JsonHandler<E> = (
  input: RouteInput<E>,
  req: Request,
  res: Response,
) => AnswerOf<E> | Promise<AnswerOf<E>>;

/**
 * How a body that is not a JSON object is refused: `object` (the default) answers
 * `request.not_object` before the schema looks at it; `as-is` lets the schema judge whatever
 * came (a missing body is then the schema's `request.invalid`); `optional` takes a missing body
 * as `{}`; `none` is `optional` for a route that takes no parameters, checked before the
 * handler runs (the handler never reads a body, so it is not left to its first read).
 */
export type BodyMode = "object" | "as-is" | "optional" | "none";

export interface JsonRouteOptions {
  body?: BodyMode;
}

/**
 * The input of one request, each part parsed with the entry's schema when the handler first
 * reads it (a 400 in the usual `{ error, code, params }` form when it does not fit). Parsed on
 * reading, not before the handler, so a handler that judges a credential or a switch first
 * still answers that first, as it always has.
 */
export function routeInput<E>(
  entry: RouteContract,
  req: Request,
  options: JsonRouteOptions,
): RouteInput<E> {
  const memo: Partial<Record<"params" | "query" | "body", unknown>> = {};
  const once = (part: "params" | "query" | "body", parse: () => unknown): unknown => {
    if (!(part in memo)) memo[part] = parse();
    return memo[part];
  };
  const body = (schema: z.ZodType): unknown => {
    const mode = options.body ?? "object";
    if (mode === "optional" || mode === "none") return optionalObject(schema, req.body);
    return parseOr400(schema, mode === "object" ? jsonObject(req.body) : req.body);
  };
  if (options.body === "none") once("body", () => (entry.body ? body(entry.body) : undefined));
  return {
    get params() {
      return once("params", () => (entry.params ? parseOr400(entry.params, req.params) : {}));
    },
    get query() {
      return once("query", () => (entry.query ? parseOr400(entry.query, req.query) : {}));
    },
    get body() {
      return once("body", () => (entry.body ? body(entry.body) : undefined));
    },
  } as RouteInput<E>;
}

/** The status of the entry's JSON answer: its first success response with a schema. */
export function answerStatus(entry: RouteContract): number {
  const statuses = Object.entries(entry.responses)
    .filter(([status, answer]) => Number(status) < 300 && answer.schema)
    .map(([status]) => Number(status));
  if (statuses.length === 0) throw new Error(`${entry.summary}: no JSON answer to give`);
  return Math.min(...statuses);
}
