import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { agentFor, call, takeCookies, type Answer } from "./load-client.js";
import type { PickupTarget } from "./load-protocol.js";

/**
 * What the load benchmark prepares through the services' own APIs before the clock starts:
 * the parcel policy for a run whose every client is 127.0.0.1, the parcels the pickup clients
 * fetch, the proxy administrator, the running (simulated) core and one session per console.
 */

const agent = agentFor(4);

async function ok(what: string, answer: Promise<Answer>): Promise<Answer> {
  const a = await answer;
  if (a.status < 200 || a.status >= 300)
    throw new Error(`${what} -> ${a.status} ${a.body.toString().slice(0, 200)}`);
  return a;
}

function json<T>(a: Answer): T {
  return JSON.parse(a.body.toString()) as T;
}

/**
 * Signs in as the parcel administrator and raises the per-address limits for the run: all
 * its clients share one address, so the daily upload allowance and the pickup failure budget
 * (a password check in flight is counted until it succeeds) are sized for the whole load.
 */
export async function parcelPolicy(parcelUrl: string, password: string): Promise<void> {
  const api = `${parcelUrl}/api/v1`;
  const headers = { origin: parcelUrl, "content-type": "application/json" };
  const login = await ok(
    "parcel admin login",
    call(`${api}/admin/login`, {
      method: "POST",
      headers,
      body: JSON.stringify({ username: "admin", password }),
      keep: true,
      agent,
    }),
  );
  const jar = new Map<string, string>();
  takeCookies(jar, login);
  const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  await ok(
    "PUT /admin/policy",
    call(`${api}/admin/policy`, {
      method: "PUT",
      headers: { ...headers, cookie },
      body: JSON.stringify({
        daily_upload_bytes: 1024 ** 4,
        pickup_failures_per_ip: 100_000,
        max_downloads: 1_000_000_000,
      }),
      keep: true,
      agent,
    }),
  );
}

/** Publishes one single-file parcel per size, with `password` (or none when ""). */
export async function publishTargets(
  parcelUrl: string,
  sizes: number[],
  password: string,
): Promise<PickupTarget[]> {
  const api = `${parcelUrl}/api/v1`;
  const out: PickupTarget[] = [];
  for (const [i, size] of sizes.entries()) {
    const data = randomBytes(size);
    const created = json<{ id: string; manage_token: string; files: { id: string }[] }>(
      await ok(
        "POST /uploads",
        call(`${api}/uploads`, {
          method: "POST",
          headers: { origin: parcelUrl, "content-type": "application/json" },
          body: JSON.stringify({
            files: [{ name: `pickup-${password ? "locked" : "open"}-${i}.bin`, size }],
            downloads: 1_000_000_000,
            days: 1,
            ...(password ? { password } : {}),
          }),
          keep: true,
          agent,
        }),
      ),
    );
    const auth = { authorization: `Bearer ${created.manage_token}`, origin: parcelUrl };
    const fileId = created.files[0].id;
    await ok(
      "PUT file",
      call(`${api}/uploads/${created.id}/files/${fileId}`, {
        method: "PUT",
        headers: auth,
        body: data,
        keep: true,
        agent,
      }),
    );
    const published = json<{ code: string }>(
      await ok(
        "publish",
        call(`${api}/uploads/${created.id}/publish`, {
          method: "POST",
          headers: auth,
          keep: true,
          agent,
        }),
      ),
    );
    const sha256 = createHash("sha256").update(data).digest("hex");
    out.push({ code: published.code, password, fileId, size, sha256 });
  }
  return out;
}

/**
 * Sets the proxy administrator up, starts the core (the fake one) and waits until its
 * controller answers, then signs in once per console (one after another: sign-in attempts
 * are counted per address while the password hash runs). Answers the consoles' cookies and
 * the controller's address and secret.
 */
export async function proxyConsoles(
  proxyUrl: string,
  setupToken: string,
  dataDir: string,
  controllerPort: number,
  consoles: number,
): Promise<{ cookies: string[]; coreUrl: string; coreSecret: string }> {
  const api = `${proxyUrl}/api/v1`;
  const password = "load-bench-password-1";
  const headers = { origin: proxyUrl, "content-type": "application/json" };
  const setup = await ok(
    "proxy setup",
    call(`${api}/auth/setup`, {
      method: "POST",
      headers,
      body: JSON.stringify({ token: setupToken, password }),
      keep: true,
      agent,
    }),
  );
  const session = (a: Answer): string => {
    const jar = new Map<string, string>();
    takeCookies(jar, a);
    const value = jar.get("svc_session");
    if (!value) throw new Error("the proxy service set no session cookie");
    return `svc_session=${value}`;
  };
  const { csrf } = json<{ csrf: string }>(setup);
  await ok(
    "start the core",
    call(`${api}/system/service`, {
      method: "POST",
      headers: { ...headers, cookie: session(setup), "x-csrf-token": csrf },
      body: JSON.stringify({ action: "start" }),
      keep: true,
      agent,
    }),
  );
  const coreUrl = `http://127.0.0.1:${controllerPort}`;
  const coreSecret = readFileSync(join(dataDir, "proxy", "core", "secret"), "utf8").trim();
  for (let i = 0; ; i++) {
    const a = await call(`${coreUrl}/version`, {
      headers: { authorization: `Bearer ${coreSecret}` },
      agent,
    }).catch(() => null);
    if (a?.status === 200) break;
    if (i > 100) throw new Error("the fake core's controller never answered");
    await sleep(100);
  }
  const cookies: string[] = [];
  for (let i = 0; i < consoles; i++) {
    const login = await ok(
      "proxy login",
      call(`${api}/auth/login`, {
        method: "POST",
        headers,
        body: JSON.stringify({ password }),
        keep: true,
        agent,
      }),
    );
    cookies.push(session(login));
  }
  return { cookies, coreUrl, coreSecret };
}

export function closeSetupAgent(): void {
  agent.destroy();
}
