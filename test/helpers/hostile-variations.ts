import type { Route } from "../../server/http/route-table.js";
import type { MatrixModel } from "./hostile-matrix.js";
import { isStateChanging, type Headers, type RawRequest } from "./hostile-http.js";

/**
 * The hostile variations of one route: each changes one thing of the route's right request
 * (credential, Origin, X-Service-Origin, Sec-Fetch-Site, CSRF proof, letter case, trailing
 * slash, Host) and says what the service must answer.
 */

export const API_PREFIX = "/api/v1";

/**
 * Variants of `/api/v1<path>` with one letter-bearing fixed segment upper-cased, as the index
 * of that segment and the changed template (for the label).
 */
export function letterCaseVariants(template: string): Array<{ index: number; label: string }> {
  const segments = `${API_PREFIX}${template}`.split("/");
  const out: Array<{ index: number; label: string }> = [];
  segments.forEach((s, i) => {
    if (s.startsWith(":") || s.toUpperCase() === s) return;
    out.push({
      index: i,
      label: segments.map((x, j) => (j === i ? x.toUpperCase() : x)).join("/"),
    });
  });
  return out;
}

/** The right request for a route, and what its variations are built from. */
export interface Baseline {
  request: RawRequest;
  /** Full template (`/api/v1/...`) with parameters filled in, without query. */
  fill(template: string): string;
  query: string;
  wrong: Array<{ label: string; headers: Headers }>;
}

export interface MatrixCase {
  label: string;
  /** The service must let this request reach the route, answering as the baseline does. */
  reaches: boolean;
  /** The refusal expected when it must not reach the route. */
  status?: number;
  build(b: Baseline): RawRequest;
}

/** Whether `template` (parameters as `:name`) is also a path of another route of `route.method`. */
function isAnotherRoute<A extends string>(routes: Route<A>[], route: Route<A>, template: string) {
  const wanted = template.split("/");
  return routes.some((other) => {
    if (other === route || other.method !== route.method) return false;
    const segments = other.path.split("/");
    return (
      segments.length === wanted.length &&
      segments.every((s, i) => s === wanted[i] || (s.startsWith(":") && !wanted[i].startsWith(":")))
    );
  });
}

const CREDENTIAL_HEADERS = ["cookie", "authorization"];

function withHeaders(b: Baseline, change: (h: Headers) => void): RawRequest {
  const headers = { ...b.request.headers };
  change(headers);
  return { ...b.request, headers };
}

/** Every variation of one route with what the rules say it must answer. */
export function casesFor<A extends string, F>(
  model: MatrixModel<A, F>,
  route: Route<A>,
  wrongLabels: string[],
): MatrixCase[] {
  const { rules } = model;
  const access = model.access[route.access];
  if (!access)
    throw new Error(`${route.method} ${route.path}: unknown access kind ${route.access}`);
  const open = access.open;
  const refusal = access.refusal ?? 401;
  const changing = isStateChanging(route.method);
  const refusedIf = (refused: boolean, status: number) =>
    refused ? { reaches: false, status } : { reaches: true };
  const cases: MatrixCase[] = [
    { label: "baseline", reaches: true, build: (b) => b.request },
    {
      label: "no credentials",
      ...refusedIf(!open, refusal),
      build: (b) => withHeaders(b, (h) => CREDENTIAL_HEADERS.forEach((k) => delete h[k])),
    },
    ...wrongLabels.map((label, i) => ({
      label: `wrong credentials (${label})`,
      ...refusedIf(!open, refusal),
      build: (b: Baseline) =>
        withHeaders(b, (h) => {
          CREDENTIAL_HEADERS.forEach((k) => delete h[k]);
          Object.assign(h, b.wrong[i].headers);
        }),
    })),
    {
      label: "foreign Origin",
      ...refusedIf(changing, 403),
      build: (b) => withHeaders(b, (h) => (h.origin = rules.foreignOrigin)),
    },
    ...rules.serviceOriginMismatches.map(({ label, value }) => ({
      label: `mismatching X-Service-Origin (${label})`,
      ...refusedIf(changing, 403),
      build: (b: Baseline) => withHeaders(b, (h) => (h["x-service-origin"] = value)),
    })),
    ...["cross-site", "Cross-Site"].map((value) => ({
      label: `Sec-Fetch-Site: ${value}`,
      ...refusedIf(changing || rules.crossSiteEveryMethod, 403),
      build: (b: Baseline) => withHeaders(b, (h) => (h["sec-fetch-site"] = value)),
    })),
  ];
  if (changing) {
    cases.push({
      label: `missing CSRF (no ${rules.csrfHeader})`,
      ...refusedIf(rules.csrfRequired(route), 403),
      build: (b) => withHeaders(b, (h) => delete h[rules.csrfHeader]),
    });
    const wrong = rules.wrongCsrf;
    if (wrong !== undefined) {
      cases.push({
        label: `wrong CSRF (another ${rules.csrfHeader})`,
        ...refusedIf(rules.csrfRequired(route), 403),
        build: (b) => withHeaders(b, (h) => (h[rules.csrfHeader] = wrong)),
      });
    }
  }
  for (const { index, label } of letterCaseVariants(route.path)) {
    // `/rules/ORDER` is `/rules/:id` with the id "ORDER": another route, with its own guard.
    if (isAnotherRoute(model.routes, route, label.slice(API_PREFIX.length))) continue;
    cases.push({
      label: `letter case ${label}`,
      reaches: false,
      status: 404,
      build: (b) => {
        // Parameters are filled in first: their values keep their own letter case.
        const segments = b.fill(API_PREFIX + route.path).split("/");
        segments[index] = segments[index].toUpperCase();
        return { ...b.request, path: segments.join("/") + b.query };
      },
    });
  }
  cases.push({
    label: "trailing slash",
    reaches: false,
    status: 404,
    build: (b) => ({ ...b.request, path: `${b.fill(API_PREFIX + route.path)}/${b.query}` }),
  });
  for (const { label, value } of rules.unknownHosts) {
    cases.push({
      label: `unknown Host (${label})`,
      ...refusedIf(!rules.anyHost(route), 421),
      build: (b) => withHeaders(b, (h) => (h.host = value)),
    });
  }
  return cases;
}
