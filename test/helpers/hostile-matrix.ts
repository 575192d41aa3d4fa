import type { Route } from "../../server/http/route-table.js";
import { API_PREFIX, casesFor, type Baseline, type MatrixCase } from "./hostile-variations.js";
import { send, type Headers } from "./hostile-http.js";

export { isStateChanging, send, type Headers, type RawReply } from "./hostile-http.js";

/**
 * A hostile request matrix built from a service's route table: every route is called once the
 * right way (the baseline) and then once per hostile variation, each variation changing one
 * thing of the baseline. The service files describe their own rules (which access kinds are
 * open, which header carries the CSRF proof, which routes answer any Host) and how to make real
 * fixtures; this module turns a route into requests and checks the answers.
 */

/** A request body: JSON, or raw bytes (file uploads). */
export type Body = { json: unknown } | { raw: Buffer } | undefined;

/** How a service admits one access kind. */
export interface AccessRules<F> {
  /** True when the route works without any credential (sign-in, public and status routes). */
  open: boolean;
  /**
   * The status of a missing or wrong credential (401 unless the service says otherwise: an
   * inbox upload without its session cookie is refused with 403).
   */
  refusal?: number;
  /** The headers (`cookie`, `authorization`) that carry the right credential. */
  credential(fx: F): Headers;
  /** Credentials of the right form that name nobody, one request each. */
  wrong(fx: F): Array<{ label: string; headers: Headers }>;
}

/** What a route's baseline needs beyond the defaults (no body, any fixture, success). */
export interface Recipe<F> {
  body?(fx: F): Body | Promise<Body>;
  query?: string;
  /**
   * The answer the baseline documents when it is not a success: its status, the reason, and
   * the route's own error sentence (so it cannot be mistaken for a guard's refusal).
   */
  status?: { code: number; why: string; error: RegExp };
  /** A successful call uses its fixture up: every request that reaches the route gets a new one. */
  consumes?: boolean;
}

export type ParamValue<F> = (fx: F) => string | Promise<string>;

/** The service's hardening rules, as the variations need them. */
export interface HostileRules<A extends string> {
  /** `Sec-Fetch-Site: cross-site` is refused on every method, not only state-changing ones. */
  crossSiteEveryMethod: boolean;
  /** The header whose absence is "missing CSRF" (`origin` or `x-csrf-token`). */
  csrfHeader: string;
  /** Whether a state-changing call of this route needs that header. */
  csrfRequired(route: Route<A>): boolean;
  /** A value of that header of the right form that is not this session's (a token, not Origin). */
  wrongCsrf?: string;
  /** Routes that answer on any Host. */
  anyHost(route: Route<A>): boolean;
  foreignOrigin: string;
  /** `X-Service-Origin` values that do not match the request's `Origin`. */
  serviceOriginMismatches: Array<{ label: string; value: string }>;
  /** `Host` values that name no entry of the service. */
  unknownHosts: Array<{ label: string; value: string }>;
}

export interface MatrixModel<A extends string, F> {
  port: number;
  rules: HostileRules<A>;
  access: Partial<Record<string, AccessRules<F>>>;
  /** Parameter values, keyed by the parameter with the segment before it (`files/:id`). */
  params: Partial<Record<string, ParamValue<F>>>;
  /** Baseline recipes keyed by `METHOD path`; routes without one use the defaults. */
  recipes: Partial<Record<string, Recipe<F>>>;
  /** The whole route table (a letter-case variant may be another route's path). */
  routes: Route<A>[];
  /** Real objects for one route's requests (a new one for each call). */
  fixture(route: Route<A>): Promise<F>;
  /** Host and same-origin headers (Origin, CSRF token) of a right request. */
  baseHeaders(route: Route<A>, fx: F): Headers;
}

export const routeKey = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/** `segment/:param` for every parameter of a route path. */
export function paramKeys(path: string): string[] {
  const segments = path.split("/");
  return segments.flatMap((s, i) => (s.startsWith(":") ? [`${segments[i - 1]}/${s}`] : []));
}

/** What the matrix does not know about a route (an unknown access kind or parameter). */
export function unknownParts<A extends string, F>(
  model: MatrixModel<A, F>,
  route: Route<A>,
): string[] {
  const problems: string[] = [];
  if (!model.access[route.access]) {
    problems.push(
      `${routeKey(route)}: access kind "${route.access}" has no rules in the hostile matrix`,
    );
  }
  for (const key of paramKeys(route.path)) {
    if (!model.params[key]) {
      problems.push(`${routeKey(route)}: parameter "${key}" has no value in the hostile matrix`);
    }
  }
  return problems;
}

function fill(path: string, values: Map<string, string>): string {
  const segments = path.split("/");
  return segments
    .map((s, i) =>
      s.startsWith(":") ? encodeURIComponent(values.get(`${segments[i - 1]}/${s}`) ?? "") : s,
    )
    .join("/");
}

async function baselineOf<A extends string, F>(
  model: MatrixModel<A, F>,
  route: Route<A>,
  fx: F,
): Promise<Baseline> {
  const access = model.access[route.access] as AccessRules<F>;
  const recipe = model.recipes[routeKey(route)] ?? {};
  const values = new Map<string, string>();
  for (const key of paramKeys(route.path)) {
    values.set(key, await (model.params[key] as ParamValue<F>)(fx));
  }
  const headers: Headers = { ...model.baseHeaders(route, fx), ...access.credential(fx) };
  const body = recipe.body ? await recipe.body(fx) : undefined;
  let payload: Buffer | undefined;
  if (body && "json" in body) {
    payload = Buffer.from(JSON.stringify(body.json));
    headers["content-type"] = "application/json";
  } else if (body) {
    payload = body.raw;
    headers["content-type"] = "application/octet-stream";
  }
  const query = recipe.query ?? "";
  const fillPath = (template: string) => fill(template, values);
  return {
    request: {
      method: route.method,
      path: fillPath(API_PREFIX + route.path) + query,
      headers,
      body: payload,
    },
    fill: fillPath,
    query,
    wrong: access.wrong(fx),
  };
}

export interface Outcome {
  label: string;
  status: number;
  ok: boolean;
  message: string;
}

/**
 * Runs one route's cases: the refusals first, all at once, on one fixture (they must change
 * nothing), then the requests that reach the route; for a route that uses its fixture up, each
 * of those after the first gets a fresh fixture.
 */
export async function runRoute<A extends string, F>(
  model: MatrixModel<A, F>,
  route: Route<A>,
): Promise<Outcome[]> {
  const problems = unknownParts(model, route);
  if (problems.length > 0) throw new Error(problems.join("; "));
  const recipe = model.recipes[routeKey(route)] ?? {};
  if (recipe.status && [401, 403].includes(recipe.status.code)) {
    throw new Error(`${routeKey(route)}: a baseline cannot be a refusal (${recipe.status.code})`);
  }
  const prepare = async () => baselineOf(model, route, await model.fixture(route));
  const shared = await prepare();
  const cases = casesFor(
    model,
    route,
    shared.wrong.map((w) => w.label),
  );
  const run = async (c: MatrixCase, b: Baseline): Promise<Outcome> => {
    const request = c.build(b);
    const reply = await send(model.port, request);
    const expected = c.reaches
      ? recipe.status
        ? `${recipe.status.code} ${recipe.status.error} like the baseline (${recipe.status.why})`
        : "a success (< 400) like the baseline"
      : String(c.status);
    const ok = c.reaches
      ? recipe.status
        ? reply.status === recipe.status.code && recipe.status.error.test(reply.text)
        : reply.status < 400
      : reply.status === c.status;
    const detail = reply.text.slice(0, 160).replace(/\s+/g, " ");
    return {
      label: c.label,
      status: reply.status,
      ok,
      message: `${routeKey(route)} [${c.label}] ${request.method} ${request.path}: answered ${reply.status} ${detail}, expected ${expected}`,
    };
  };
  const outcomes = await Promise.all(cases.filter((c) => !c.reaches).map((c) => run(c, shared)));
  const through = cases.filter((c) => c.reaches);
  if (recipe.consumes) {
    for (const [i, c] of through.entries()) {
      outcomes.push(await run(c, i === 0 ? shared : await prepare()));
    }
  } else {
    outcomes.push(...(await Promise.all(through.map((c) => run(c, shared)))));
  }
  return outcomes;
}

/** Recipes naming a route the table does not have (left behind when a route went away). */
export function staleRecipes<A extends string, F>(
  model: MatrixModel<A, F>,
  routes: Route<A>[],
): string[] {
  const known = new Set(routes.map(routeKey));
  return Object.keys(model.recipes).filter((k) => !known.has(k));
}
