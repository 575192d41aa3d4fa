import type { HostInfo } from "../host/host-status.js";
import { cookieHeader } from "../operator/cookies.js";
import type { OperatorService, ServiceSignIn } from "../operator/types.js";

/**
 * The desktop's own calls to the consoles' APIs, signed in as the operator (the proxy core's
 * start and stop, the parcel inbox). A password change from the settings screen ends every
 * other session, this one too: on 401 the app signs in again with the kept password and the
 * call is made once more.
 */

export interface OperatorCallDeps {
  info(): HostInfo;
  /** The operator's session with a console, as the last sign-in left it. */
  session(service: OperatorService): ServiceSignIn | null;
  /** Signs in again (after a 401); false when that is not possible now. */
  signInAgain(): Promise<boolean>;
  fetch?: typeof fetch;
  log(line: string): void;
}

export interface OperatorAnswer {
  status: number;
  body: unknown;
}

const TIMEOUT_MS = 30_000;

/**
 * `method /api/v1<path>` on a console as the operator; null when the console is not running,
 * the operator is not signed in, or the request failed (said in the log).
 */
export async function operatorCall(
  deps: OperatorCallDeps,
  service: OperatorService,
  method: string,
  path: string,
  body?: unknown,
): Promise<OperatorAnswer | null> {
  const ask = async (): Promise<OperatorAnswer | null> => {
    const base = deps.info()[service]?.url;
    const session = deps.session(service);
    if (!base || session?.state !== "signed-in") return null;
    const origin = new URL(base).origin;
    const write = method !== "GET" && method !== "HEAD";
    try {
      const res = await (deps.fetch ?? fetch)(`${origin}/api/v1${path}`, {
        method,
        headers: {
          accept: "application/json",
          origin,
          cookie: cookieHeader(session.cookies),
          ...(write && body !== undefined ? { "content-type": "application/json" } : {}),
          ...(write && session.csrf ? { "x-csrf-token": session.csrf } : {}),
        },
        body: write && body !== undefined ? JSON.stringify(body) : undefined,
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const text = await res.text();
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: the status says enough
      }
      return { status: res.status, body: parsed };
    } catch (err) {
      deps.log(`${method} ${path} on the ${service} console failed: ${(err as Error).message}`);
      return null;
    }
  };
  const answer = await ask();
  if (answer?.status !== 401 || !(await deps.signInAgain())) return answer;
  return ask();
}
