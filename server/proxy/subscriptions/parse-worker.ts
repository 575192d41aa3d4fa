import { parentPort } from "node:worker_threads";
import type { ErrorParams } from "../../http/error-codes.js";
import { SubscriptionError } from "./errors.js";
import { parseSubscription, type ParsedSubscription } from "./parse.js";

/**
 * A parse's result with its nodes as JSON text: one string crosses to the service's thread
 * in one copy, where thousands of node objects would be copied (and rebuilt) one by one.
 */
export type ParsedText = Omit<ParsedSubscription, "nodes"> & { nodesJson: string };

/** What the service sends: the downloaded document (a Buffer arrives as a Uint8Array). */
export interface ParseRequest {
  id: number;
  body: Uint8Array | string;
}

/**
 * What the worker answers; a SubscriptionError comes back with its code and params, an
 * unexpected fault with an empty code.
 */
export type ParseReply =
  | { id: number; ok: true; result: ParsedText }
  | { id: number; ok: false; code: string; params: ErrorParams; message: string };

function answer(req: ParseRequest): ParseReply {
  try {
    const body =
      typeof req.body === "string"
        ? req.body
        : Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength);
    const { nodes, ...rest } = parseSubscription(body);
    return { id: req.id, ok: true, result: { ...rest, nodesJson: JSON.stringify(nodes) } };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const typed = err instanceof SubscriptionError;
    return {
      id: req.id,
      ok: false,
      code: typed ? err.code : "",
      params: typed ? err.params : {},
      message,
    };
  }
}

// Runs inside the worker thread that parse-worker.mjs starts; the main thread sends one
// request at a time and replaces the whole worker when a parse runs past its budget.
const port = parentPort;
if (port) {
  port.on("message", (req: ParseRequest) => port.postMessage(answer(req)));
  port.postMessage({ ready: true });
}
