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

/** Parses `value` with `schema`, throwing a 400 HttpError that names the bad field. */
export function parseOr400<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(400, describeIssue(result.error));
  return result.data;
}

/** A JSON object body, or 400 when the body is missing or not an object. */
export function jsonObject(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new HttpError(400, "The request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}
