import { type Router } from "express";
import { DomainError } from "../../domain-errors.js";
import { HttpError } from "../../http/errors.js";
import { coreUnavailable } from "../core/errors.js";
import type { ProxyContext } from "../context.js";
import { coreApi, type CoreApi } from "../core/index.js";
import { CoreReaderFault } from "../core/core-reader.js";
import type { ProxyRouterDeps } from "./router-deps.js";

const DEADLINE_MS = 5000;

function api(deps: ProxyContext): CoreApi {
  const client = coreApi(deps.core);
  if (!client) throw coreUnavailable();
  return client;
}

/**
 * Any failure to talk to the core (down, refused, timed out, unauthorised) is a 503. A fault
 * of the service's own reader is not the core's: it stays a failure of the service (500).
 */
async function live<T>(task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (err) {
    if (err instanceof HttpError || err instanceof DomainError || err instanceof CoreReaderFault)
      throw err;
    throw coreUnavailable(err);
  }
}

export function connectionsRouter(deps: ProxyRouterDeps): Router {
  const router = deps.routes.router();

  // Tens of thousands of connections make megabytes of JSON: the core reader fetches, parses,
  // labels and writes the answer in its own thread; this one only sends the bytes.
  router.raw("GET /connections", async (_req, res) => {
    const subscriptions = deps.store.listSubscriptions();
    const { body, release } = await live(() =>
      api(deps).connectionsJson(subscriptions, DEADLINE_MS),
    );
    // The bytes are the reader's reusable memory: lent until the answer is sent (or cut).
    res.once("close", release);
    res.set("Content-Type", "application/json; charset=utf-8").send(body);
  });

  router.endpoint("DELETE /connections/:id", async (input) => {
    const { id } = input.params;
    await live(() => api(deps).closeConnection(id, DEADLINE_MS));
    return { ok: true };
  });

  router.endpoint("DELETE /connections", async () => {
    await live(() => api(deps).closeConnections(DEADLINE_MS));
    return { ok: true };
  });

  return router;
}
