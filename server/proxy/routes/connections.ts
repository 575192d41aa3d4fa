import { type Router } from "express";
import { DomainError } from "../../domain-errors.js";
import { HttpError } from "../../http/errors.js";
import type { ProxyContext } from "../context.js";
import { coreApi, type CoreApi } from "../core/index.js";
import type { CoreConnections } from "../core/mihomo-client.js";
import { coreNodePrefix } from "../types.js";
import { IdParam, type ChainLabel, type Ok } from "../../contract/proxy.js";
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

const CORE_NAME = /^\[([0-9a-f]{24})\] ([\s\S]+)$/;

/**
 * Inside the core a node is named `[<subscription id>] <name>`; the console shows the
 * subscription's name instead of its id, so each connection gets `chainLabels` beside the
 * core's own `chains`.
 */
export function labelChains(
  view: CoreConnections,
  subscriptions: ReadonlyArray<{ id: string; name: string }>,
): CoreConnections {
  const names = new Map(subscriptions.map((s) => [s.id, s.name]));
  const label = (step: string): ChainLabel => {
    const m = CORE_NAME.exec(step);
    if (!m || !step.startsWith(coreNodePrefix(m[1]))) return { name: step, subscription: null };
    return { name: m[2], subscription: names.get(m[1]) ?? null };
  };
  return {
    ...view,
    connections: view.connections.map((c) => ({
      ...c,
      chainLabels: Array.isArray(c.chains) ? c.chains.map((step) => label(String(step))) : [],
    })),
  };
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
