import { type Router } from "express";
import { HttpError } from "../../http/errors.js";
import type { ProxyContext } from "../context.js";
import { coreApi, type CoreApi } from "../core/index.js";
import { errorMessage } from "../core/errors.js";

const DEADLINE_MS = 5000;

function api(ctx: ProxyContext): CoreApi {
  const client = coreApi(ctx.core);
  if (!client) throw new HttpError(503, "The proxy core is not connected");
  return client;
}

/** Any failure to talk to the core (down, refused, timed out, unauthorised) is a 503. */
async function live<T>(task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(503, `The proxy core is not connected: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}

export function connectionsRouter(ctx: ProxyContext): Router {
  const router = ctx.routes.router();

  router.get("/connections", async (_req, res) => {
    res.json(await live(() => api(ctx).connections(DEADLINE_MS)));
  });

  router.delete("/connections/:id", async (req, res) => {
    const id = String(req.params.id);
    await live(() => api(ctx).closeConnection(id, DEADLINE_MS));
    res.json({ ok: true });
  });

  router.delete("/connections", async (_req, res) => {
    await live(() => api(ctx).closeConnections(DEADLINE_MS));
    res.json({ ok: true });
  });

  return router;
}
