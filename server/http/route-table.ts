import express, { type RequestHandler, type Router } from "express";
import type { ApiContract } from "../contract/route.js";
import { markRoute } from "./request-log.js";

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
const METHODS: Method[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/** One route a service answers, with the kind of caller it admits. */
export interface Route<A extends string> {
  method: Method;
  /** Full path below `/api/v1`, with Express parameters (`/uploads/:id`). */
  path: string;
  access: A;
}

export interface RouteTableOptions<A extends string> {
  /**
   * The service's contract: each entry, keyed `METHOD /path`, is a route the service must
   * register, with who may call it. A route without an entry cannot be registered.
   */
  contract: ApiContract<A>;
  /** Handlers run before the route's own ones once it has matched (credential checks). */
  guard(access: A, method: Method): RequestHandler[];
}

/** Express router options for paths that match exactly: letter case and trailing slash count. */
export const EXACT = { caseSensitive: true, strict: true } as const;

/**
 * Every route of one service in one list. Routers made here match paths exactly (a path in
 * another letter case or with a trailing slash matches nothing and ends as 404), record each
 * route they register, and put the guard of its access kind in front of its handlers, so a
 * credential is checked on the route that actually matched and no route can be added without
 * an access decision. Tests read `routes` to try every route with hostile requests, and
 * compare them with the contract's entries (`unregistered()` after the service is built).
 */
export class RouteTable<A extends string> {
  readonly routes: Route<A>[] = [];

  constructor(private readonly options: RouteTableOptions<A>) {}

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

  /** A router for paths below `prefix` (the path its parent mounts it at). */
  router(prefix = ""): Router {
    const router = express.Router(EXACT);
    for (const method of METHODS) {
      const key = method.toLowerCase() as "get" | "head" | "post" | "put" | "patch" | "delete";
      const register = router[key].bind(router) as (path: string, ...h: RequestHandler[]) => Router;
      const wrapped = (path: string, ...handlers: RequestHandler[]): Router => {
        if (typeof path !== "string") throw new Error("routes are registered with a string path");
        const full = prefix + path;
        const entry = this.options.contract[`${method} ${full}`] as
          ApiContract<A>[string] | undefined;
        if (!entry) throw new Error(`route ${method} ${full} has no entry in the contract`);
        const access = entry.access;
        if (this.routes.some((r) => r.method === method && r.path === full)) {
          throw new Error(`route ${method} ${full} is registered twice`);
        }
        this.routes.push({ method, path: full, access });
        // Named in the request log by its pattern, never by the raw URL.
        const mark: RequestHandler = (_req, res, next) => {
          markRoute(res, full);
          next();
        };
        return register(path, mark, ...this.options.guard(access, method), ...handlers);
      };
      Object.assign(router, { [key]: wrapped });
    }
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
