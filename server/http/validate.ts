import type { z } from "zod";
import { HttpError } from "./errors.js";

/** Describes the first zod issue as one English sentence. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "Invalid request";
  const path = issue.path.length > 0 ? issue.path.join(".") : "";
  if (issue.code === "unrecognized_keys") {
    return `Unknown field${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}`;
  }
  return path ? `Invalid ${path}: ${issue.message}` : issue.message;
}

/**
 * The first zod issue as a coded 400: the field's path and the kind of problem travel as
 * params (`too_small` and `too_big` with what was measured and the bound), so a page can say
 * it in its language.
 */
export function issueError(error: z.ZodError): HttpError {
  const message = describeIssue(error);
  const issue = error.issues[0];
  const field = issue ? issue.path.join(".") : "";
  if (issue?.code === "unrecognized_keys") {
    return new HttpError(400, "request.unknown_field", message, {
      params: { field: issue.keys.join(", ") },
    });
  }
  const sized = issue && (issue.code === "too_small" || issue.code === "too_big") ? issue : null;
  const bound = sized ? Number(sized.code === "too_small" ? sized.minimum : sized.maximum) : NaN;
  return new HttpError(400, "request.invalid", message, {
    params: {
      field,
      issue: issue?.code ?? "invalid",
      // What was measured (string, number, array, ...) and the bound it broke.
      ...(sized ? { origin: sized.origin } : {}),
      ...(Number.isFinite(bound) ? { limit: bound } : {}),
    },
  });
}

/** Parses `value` with `schema`, throwing a 400 HttpError that names the bad field. */
export function parseOr400<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw issueError(result.error);
  return result.data;
}

/** A JSON object body, or 400 when the body is missing or not an object. */
export function jsonObject(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new HttpError(400, "request.not_object", "The request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}

/** A body that may be left out (taken as `{}`), else a JSON object `schema` accepts. */
export function optionalObject<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  return parseOr400(schema, body === undefined ? {} : jsonObject(body));
}
