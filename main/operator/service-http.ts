import { cookiesOf, cookieHeader, type DesktopCookie } from "./cookies.js";

/**
 * The few calls the desktop makes to its own services, over real HTTP like any browser:
 * both consoles' sign-in, the proxy's first setup and password change. Each call sends the
 * service's own origin as `Origin`, as a page of that service would.
 */

export interface HttpOptions {
  fetch: typeof fetch;
  /** Per call; a service that does not answer in time counts as unreachable. */
  timeoutMs: number;
  nowMs: () => number;
}

export interface ServiceAnswer {
  status: number;
  /** The service's stable error code, when it refused. */
  code: string | null;
  /** The service's English sentence, when it refused. */
  error: string | null;
  params: Record<string, unknown> | null;
  /** A CSRF token the body carried (the proxy's sign-in answers have one). */
  csrf: string | null;
  cookies: DesktopCookie[];
  body: Record<string, unknown>;
}

/** The service did not answer (refused connection, timeout, not HTTP). */
export class ServiceUnreachable extends Error {
  constructor(url: string, cause: unknown) {
    super(`no answer from ${new URL(url).origin}`, { cause });
    this.name = "ServiceUnreachable";
  }
}

interface CallOptions {
  body?: unknown;
  cookies?: readonly DesktopCookie[];
  csrf?: string | null;
}

function stringOr(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

async function call(
  http: HttpOptions,
  base: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ServiceAnswer> {
  const origin = new URL(base).origin;
  const headers: Record<string, string> = { origin, accept: "application/json" };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (options.cookies?.length) headers.cookie = cookieHeader(options.cookies);
  if (options.csrf) headers["x-csrf-token"] = options.csrf;
  let response: Response;
  let text: string;
  try {
    response = await http.fetch(`${origin}/api/v1${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      redirect: "manual",
      signal: AbortSignal.timeout(http.timeoutMs),
    });
    text = await response.text();
  } catch (err) {
    throw new ServiceUnreachable(base, err);
  }
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: status alone decides.
  }
  const params = body.params;
  return {
    status: response.status,
    code: stringOr(body.code),
    error: stringOr(body.error),
    params: params && typeof params === "object" ? (params as Record<string, unknown>) : null,
    csrf: stringOr(body.csrf) || null,
    cookies: cookiesOf(response, origin, http.nowMs()),
    body,
  };
}

export function parcelLogin(
  http: HttpOptions,
  base: string,
  username: string,
  password: string,
): Promise<ServiceAnswer> {
  return call(http, base, "POST", "/admin/login", { body: { username, password } });
}

export async function proxyInitialized(http: HttpOptions, base: string): Promise<boolean | null> {
  const answer = await call(http, base, "GET", "/auth/status");
  if (answer.status !== 200 || typeof answer.body.initialized !== "boolean") return null;
  return answer.body.initialized;
}

export function proxySetup(
  http: HttpOptions,
  base: string,
  token: string,
  password: string,
): Promise<ServiceAnswer> {
  return call(http, base, "POST", "/auth/setup", { body: { token, password } });
}

export function proxyLogin(
  http: HttpOptions,
  base: string,
  password: string,
): Promise<ServiceAnswer> {
  return call(http, base, "POST", "/auth/login", { body: { password } });
}

/**
 * Needs the administrator's session cookie; the service keeps that session and ends every
 * other one (the window's too), so the caller hands this session to the window.
 */
export function parcelChangePassword(
  http: HttpOptions,
  base: string,
  session: { cookies: readonly DesktopCookie[] },
  currentPassword: string,
  password: string,
): Promise<ServiceAnswer> {
  return call(http, base, "PUT", "/admin/password", {
    body: { current_password: currentPassword, password },
    cookies: session.cookies,
  });
}

/** Needs a signed-in session (its cookies and CSRF token); the proxy keeps that session. */
export function proxyChangePassword(
  http: HttpOptions,
  base: string,
  session: { cookies: readonly DesktopCookie[]; csrf: string | null },
  currentPassword: string,
  password: string,
): Promise<ServiceAnswer> {
  return call(http, base, "PUT", "/auth/password", {
    body: { currentPassword, password },
    cookies: session.cookies,
    csrf: session.csrf,
  });
}
