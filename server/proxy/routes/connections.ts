import { type Router } from "express";
import { DomainError } from "../../domain-errors.js";
import { HttpError } from "../../http/errors.js";
import type { ProxyContext } from "../context.js";
import { coreApi, type CoreApi } from "../core/index.js";
import { labelChains } from "../domain/core-names.js";
import { IdParam, type Ok } from "../../contract/proxy.js";
import { parseOr400 } from "../../http/validate.js";
import type { ProxyRouterDeps } from "./router-deps.js";

const DEADLINE_MS = 5000;

/**
 * One sentence for "no live data": the console shows it once, in the reader's language (by
 * its code); the socket's own words stay in the cause.
 */
function coreDown(cause?: unknown): HttpError {
  return new HttpError(
    503,
    "core.unreachable",
    "The proxy core is not running or cannot be reached",
    { cause },
  );
}

function api(deps: ProxyContext): CoreApi {
  const client = coreApi(deps.core);
  if (!client) throw coreDown();
  return client;
}

/** Any failure to talk to the core (down, refused, timed out, unauthorised) is a 503. */
async function live<T>(task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (err) {
    if (err instanceof HttpError || err instanceof DomainError) throw err;
    throw coreDown(err);
  }
}

export function connectionsRouter(deps: ProxyRouterDeps): Router {
  const router = deps.routes.router();

  router.get("/connections", async (_req, res) => {
    const view = await live(() => api(deps).connections(DEADLINE_MS));
    res.json(labelChains(view, deps.store.listSubscriptions()));
  });

  router.delete("/connections/:id", async (req, res) => {
    const { id } = parseOr400(IdParam, req.params);
    await live(() => api(deps).closeConnection(id, DEADLINE_MS));
    res.json({ ok: true } satisfies Ok);
  });

  router.delete("/connections", async (_req, res) => {
    await live(() => api(deps).closeConnections(DEADLINE_MS));
    res.json({ ok: true } satisfies Ok);
  });

  return router;
}
