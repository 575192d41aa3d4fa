import express, { type RequestHandler, type Router } from "express";
import type { ApiContract, RouteContract } from "../contract/route.js";
import { markRoute } from "./request-log.js";
import {
  answerStatus,
  routeInput,
  type JsonHandler,
  type JsonRouteOptions,
} from "./route-input.js";

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
const METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

/** One route a service answers, with the kind of caller it admits. */
export interface Route<A extends string> {
  method: Method;
  /** Full path below `/api/v1`, with Express parameters (`/uploads/:id`). */
  path: string;
  access: A;
}

export interface RouteTableOptions<A extends string, C extends ApiContract<A>> {
  /**
   * The service's contract: each entry, keyed `METHOD /path`, is a route the service must
   * register, with who may call it. A route without an entry cannot be registered.
   */
  contract: C;
  /**
   * Handlers run before the route's own ones once it has matched: the credential check of
   * its access kind, and the body parser of an entry that takes a JSON body.
   */
  guard(access: A, method: Method, entry: RouteContract<A>): RequestHandler[];
}

/** Express router options for paths that match exactly: letter case and trailing slash count. */
export const EXACT = { caseSensitive: true, strict: true } as const;

/**
 * A router whose routes are registered from the contract's entries, by their key:
 * `endpoint("GET /uploads/:id", handler)` for a JSON route, `raw(key, ...handlers)` for one
 * that reads or writes bytes itself (file bodies, downloads, event streams, backups).
 */
export interface ApiRouter<C extends ApiContract> extends Router {
  endpoint<K extends keyof C & string>(
    key: K,
    handler: JsonHandler<C[K]>,
    options?: JsonRouteOptions,
  ): void;
  raw(key: keyof C & string, ...handlers: RequestHandler[]): void;
}

/**
 * Every route of one service in one list, made from its contract. Routers made here match
 * paths exactly (a path in another letter case or with a trailing slash matches nothing and
 * ends as 404), register a route only from its contract entry, and put the guard of the
 * entry's access kind in front of its handler, so a credential is checked on the route that
 * actually matched and no route can be added without an entry. A JSON route's handler gets
 * its input parsed with the entry's schemas and returns the entry's answer. Tests read
 * `routes` to try every route with hostile requests, and compare them with the entries.
 */
export class RouteTable<A extends string, C extends ApiContract<A> = ApiContract<A>> {
  readonly routes: Route<A>[] = [];

  constructor(private readonly options: RouteTableOptions<A, C>) {}

  /** The contract's entries no router has registered (empty once the service is built). */
  unregistered(): string[] {
    const done = new Set(this.routes.map((r) => `${r.method} ${r.path}`));
    return Object.keys(this.options.contract).filter((key) => !done.has(key));
  }

  /** Called once every router is made: a contract entry without a handler stops the service. */
  assertComplete(): void {
    const missing = this.unregistered();
    if (missing.length > 0)
      throw new Error(`contract entries without a route: ${missing.join(", ")}`);
  }

  /** A router for the entries below `prefix` (the path its parent mounts it at). */
  router(prefix = ""): ApiRouter<C> {
    const router = express.Router(EXACT) as ApiRouter<C>;
    const VERBS = ["get", "head", "post", "put", "patch", "delete"] as const;
    type Register = (path: string, ...handlers: RequestHandler[]) => unknown;
    const plain = Object.fromEntries(
      VERBS.map((v) => [v, (router[v] as Register).bind(router)]),
    ) as Record<(typeof VERBS)[number], Register>;
    // A route is registered from its entry only: the plain Express methods refuse.
    for (const verb of VERBS) {
      Object.assign(router, {
        [verb]: () => {
          throw new Error(`register routes from the contract: endpoint() or raw(), not ${verb}()`);
        },
      });
    }
    const add = (key: string, handlers: RequestHandler[]): void => {
      const [method, full] = key.split(" ") as [Method, string];
      const entry = this.options.contract[key] as RouteContract<A> | undefined;
      if (!entry || !METHODS.has(method))
        throw new Error(`route ${key} has no entry in the contract`);
      if (!full.startsWith(prefix)) throw new Error(`route ${key} is not below ${prefix}`);
      if (this.routes.some((r) => r.method === method && r.path === full)) {
        throw new Error(`route ${key} is registered twice`);
      }
      this.routes.push({ method, path: full, access: entry.access });
      // Named in the request log by its pattern, never by the raw URL.
      const mark: RequestHandler = (_req, res, next) => {
        markRoute(res, full);
        next();
      };
      const verb = method.toLowerCase() as (typeof VERBS)[number];
      plain[verb](
        full.slice(prefix.length),
        mark,
        ...this.options.guard(entry.access, method, entry),
        ...handlers,
      );
    };
    router.raw = (key, ...handlers) => {
      add(key, handlers);
    };
    router.endpoint = (key, handler, options = {}) => {
      const entry = this.options.contract[key] as RouteContract<A> | undefined;
      const status = entry ? answerStatus(entry) : 200;
      add(key, [
        async (req, res) => {
          const answer = await handler(routeInput(entry!, req, options), req, res);
          res.status(status).json(answer);
        },
      ]);
    };
    return router;
  }
}

/**
 * How many method-and-path routes an Express router really answers, counted through its
 * mounted sub-routers. A test compares this with a table's length so that a route registered
 * around the table cannot go unnoticed.
 */
export function countRoutes(router: unknown): number {
  const stack = (router as { stack?: unknown[] }).stack ?? [];
  let n = 0;
  for (const layer of stack as Array<{ route?: { methods?: object }; handle?: unknown }>) {
    if (layer.route) n += Object.keys(layer.route.methods ?? {}).filter((m) => m !== "_all").length;
    else if (layer.handle && (layer.handle as { stack?: unknown }).stack)
      n += countRoutes(layer.handle);
  }
  return n;
}
