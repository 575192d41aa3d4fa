import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { cookieHeader, type DesktopCookie } from "../../main/operator/cookies.js";
import { createOperator, generateOperatorPassword } from "../../main/operator/operator.js";
import { OPERATOR_ACCOUNTS } from "../../main/operator/types.js";
import { chooseSecretStore, unavailableStore } from "../../main/secrets/choose.js";
import { createKeychain, type SecretStore } from "../../main/secrets/keychain.js";
import { parseConfig } from "../../server/config.js";
import { startGatehouse, type RunningGatehouse } from "../../server/host.js";
import { createLogger } from "../../server/log.js";
import { freePort } from "../helpers/free-ports.js";

/**
 * The desktop operator's sign-in against the real services (both on port 0, a temporary data
 * dir) and the real OS keychain over D-Bus. Without a session bus the suite says so and skips,
 * except under CI=true, where a missing keychain fails it.
 */
const haveBus = Boolean(process.env.DBUS_SESSION_BUS_ADDRESS);
if (!haveBus && !process.env.CI) {
  console.warn(
    "desktop operator tests skipped: no D-Bus session (run under dbus-run-session with gnome-keyring)",
  );
}

const service = `Gatehouse-test-${randomBytes(4).toString("hex")}`;
const dirs: string[] = [];
const running: RunningGatehouse[] = [];

async function start(dataDir: string, extra: string[] = []): Promise<RunningGatehouse> {
  const config = parseConfig([
    "--data-dir",
    dataDir,
    "--host",
    "127.0.0.1",
    "--parcel-port",
    "0",
    "--proxy-port",
    "0",
    "--core-bin",
    join(dataDir, "no-core-here"),
    // Never the production controller port, which a real core may hold.
    "--core-controller-port",
    String(await freePort()),
    ...extra,
  ]);
  if (config === "help") throw new Error("unexpected help");
  const services = await startGatehouse(config, createLogger({ level: "silent" }));
  running.push(services);
  return services;
}

async function stop(services: RunningGatehouse): Promise<void> {
  running.splice(running.indexOf(services), 1);
  await services.stop();
}

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "gh-operator-"));
  dirs.push(dir);
  return dir;
}

/** What the host's `ready` message carries for sign-in. */
function ready(services: RunningGatehouse) {
  return { parcel: services.parcel, proxy: services.proxy };
}

async function status(url: string, cookies: readonly DesktopCookie[]): Promise<number> {
  const headers: Record<string, string> = cookies.length ? { cookie: cookieHeader(cookies) } : {};
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  return response.status;
}

const parcelAdmin = (s: RunningGatehouse) => `${s.parcel?.url}/api/v1/admin/stats`;
const proxyAdmin = (s: RunningGatehouse) => `${s.proxy?.url}/api/v1/subscriptions`;

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(haveBus || process.env.CI)("desktop operator sign-in", () => {
  const keychain: SecretStore = createKeychain(service);
  const clear = () => {
    for (const account of Object.values(OPERATOR_ACCOUNTS)) keychain.delete(account);
  };
  afterEach(clear);
  afterAll(clear);

  /** An operator whose generated passwords the test can see. */
  function operator() {
    const generated: string[] = [];
    const op = createOperator({
      secrets: keychain,
      generatePassword: () => {
        const password = generateOperatorPassword();
        generated.push(password);
        return password;
      },
    });
    return { op, generated };
  }

  it("creates both administrators on first run, keeps their passwords and signs the window in", async () => {
    const dataDir = freshDir();
    const services = await start(dataDir);
    const parcelPassword = services.parcel?.generatedAdminPassword;
    expect(parcelPassword).toBeTruthy();
    expect(services.proxy?.setupToken).toBeTruthy();
    const { op, generated } = operator();
    const before = Date.now() / 1000;
    const result = await op.signIn(ready(services));

    expect(result.parcel).toMatchObject({ state: "signed-in", created: true, kept: true });
    expect(result.proxy).toMatchObject({ state: "signed-in", created: true, kept: true });
    expect(keychain.get(OPERATOR_ACCOUNTS.parcel)).toBe(parcelPassword);
    expect(generated).toHaveLength(1);
    expect(keychain.get(OPERATOR_ACCOUNTS.proxy)).toBe(generated[0]);
    // The proxy's setup token is used up: the file the console would have asked for is gone.
    expect(existsSync(join(dataDir, "proxy", "setup-token"))).toBe(false);

    const parcelCookies = result.cookies.filter((c) => c.url === services.parcel?.url);
    const proxyCookies = result.cookies.filter((c) => c.url === services.proxy?.url);
    expect(parcelCookies.map((c) => c.name)).toEqual(["pt_admin"]);
    expect(proxyCookies.map((c) => c.name)).toEqual(["svc_session"]);
    for (const [cookie, lifetime] of [
      [parcelCookies[0], 8 * 3600],
      [proxyCookies[0], 24 * 3600],
    ] as const) {
      expect(cookie).toMatchObject({
        httpOnly: true,
        secure: false,
        sameSite: "strict",
        path: "/",
      });
      expect(cookie.expirationDate).toBeGreaterThanOrEqual(Math.floor(before + lifetime) - 1);
      expect(cookie.expirationDate).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000 + lifetime));
    }
    if (result.proxy?.state !== "signed-in") throw new Error("proxy not signed in");
    expect(result.proxy.csrf).toMatch(/^[\w-]{20,}$/);

    // The cookies really open the consoles' administrator routes, and nothing else does.
    expect(await status(parcelAdmin(services), parcelCookies)).toBe(200);
    expect(await status(parcelAdmin(services), [])).toBe(401);
    expect(await status(proxyAdmin(services), proxyCookies)).toBe(200);
    expect(await status(proxyAdmin(services), [])).toBe(401);
    expect(op.revealPassword("parcel")).toBe(parcelPassword);
    expect(op.revealPassword("proxy")).toBe(generated[0]);
  });

  it("signs in with the stored passwords on the next run and creates nothing", async () => {
    const dataDir = freshDir();
    const first = await start(dataDir);
    await operator().op.signIn(ready(first));
    const stored = Object.values(OPERATOR_ACCOUNTS).map((a) => keychain.get(a));
    await stop(first);

    const second = await start(dataDir);
    expect(second.parcel?.generatedAdminPassword).toBeNull();
    expect(second.proxy?.setupToken).toBeNull();
    const { op, generated } = operator();
    const result = await op.signIn(ready(second));
    expect(result.parcel).toMatchObject({ state: "signed-in", created: false });
    expect(result.proxy).toMatchObject({ state: "signed-in", created: false });
    expect(generated).toEqual([]);
    expect(Object.values(OPERATOR_ACCOUNTS).map((a) => keychain.get(a))).toEqual(stored);
    const byUrl = (url?: string) => result.cookies.filter((c) => c.url === url);
    expect(await status(parcelAdmin(second), byUrl(second.parcel?.url))).toBe(200);
    expect(await status(proxyAdmin(second), byUrl(second.proxy?.url))).toBe(200);
  });

  it("asks for a parcel reset and the proxy password when a data dir was made without the desktop", async () => {
    const dataDir = freshDir();
    const headless = await start(dataDir);
    // Set up in a browser: the desktop never learns this password.
    const browserPassword = "set up in a browser 1";
    const setup = await fetch(`${headless.proxy?.url}/api/v1/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: headless.proxy?.setupToken, password: browserPassword }),
    });
    expect(setup.status).toBe(200);
    await stop(headless);

    let services = await start(dataDir);
    const { op } = operator();
    const result = await op.signIn(ready(services));
    expect(result.parcel).toEqual({ state: "need-reset", reason: "no-stored-password" });
    expect(result.proxy).toEqual({ state: "need-password", reason: "no-stored-password" });
    expect(result.cookies).toEqual([]);
    expect(op.revealPassword("parcel")).toBeNull();

    // The wiring restarts the services with --reset-admin-password: the new one is kept.
    await stop(services);
    services = await start(dataDir, ["--reset-admin-password"]);
    const reset = services.parcel?.generatedAdminPassword;
    expect(reset).toBeTruthy();
    const again = await op.signIn(ready(services));
    expect(again.parcel).toMatchObject({ state: "signed-in", created: true, kept: true });
    expect(keychain.get(OPERATOR_ACCOUNTS.parcel)).toBe(reset);

    // The operator gives the proxy password once; a wrong one is not kept.
    const wrong = await op.rememberPassword("proxy", "not the password 1");
    expect(wrong).toMatchObject({ ok: false, code: "operator.password_wrong" });
    expect(keychain.get(OPERATOR_ACCOUNTS.proxy)).toBeNull();
    const remembered = await op.rememberPassword("proxy", browserPassword);
    expect(remembered.ok).toBe(true);
    expect(keychain.get(OPERATOR_ACCOUNTS.proxy)).toBe(browserPassword);
    if (!remembered.ok) throw new Error("not remembered");
    expect(await status(proxyAdmin(services), remembered.cookies)).toBe(200);
  });

  it("asks for a parcel reset when the service rejects the stored password", async () => {
    const dataDir = freshDir();
    await stop(await start(dataDir));
    keychain.set(OPERATOR_ACCOUNTS.parcel, "an old password from another data dir");
    const services = await start(dataDir);
    const result = await operator().op.signIn({ parcel: services.parcel, proxy: null });
    expect(result).toEqual({
      parcel: { state: "need-reset", reason: "stored-password-rejected" },
      proxy: null,
      cookies: [],
    });
  });

  it("changes the proxy password through the service and updates the keychain only after it accepted", async () => {
    const services = await start(freshDir());
    const { op, generated } = operator();
    const first = await op.signIn(ready(services));
    const oldPassword = generated[0];
    const windowCookies = first.cookies.filter((c) => c.url === services.proxy?.url);

    const wrongCurrent = await op.changePassword(
      "proxy",
      "not the password 1",
      "a new password 123",
    );
    expect(wrongCurrent).toMatchObject({ ok: false, code: "operator.password_wrong" });
    expect(keychain.get(OPERATOR_ACCOUNTS.proxy)).toBe(oldPassword);

    const tooShort = await op.changePassword("proxy", oldPassword, "short");
    expect(tooShort).toMatchObject({
      ok: false,
      code: "operator.password_rule",
      serviceCode: "auth.password_short",
      params: { min: 12 },
    });
    expect(keychain.get(OPERATOR_ACCOUNTS.proxy)).toBe(oldPassword);
    expect(await status(proxyAdmin(services), windowCookies)).toBe(200);

    const changed = await op.changePassword("proxy", oldPassword, "a new password 123");
    if (!changed.ok) throw new Error(`change refused: ${changed.code}`);
    expect(keychain.get(OPERATOR_ACCOUNTS.proxy)).toBe("a new password 123");
    expect(op.revealPassword("proxy")).toBe("a new password 123");
    // The change ends every other session, the window's too; the returned one replaces it.
    expect(await status(proxyAdmin(services), windowCookies)).toBe(401);
    expect(await status(proxyAdmin(services), changed.cookies)).toBe(200);
    expect(changed.csrf).toMatch(/^[\w-]{20,}$/);
    const login = await fetch(`${services.proxy?.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: "a new password 123" }),
    });
    expect(login.status).toBe(200);
  });

  it("changes the parcel password through the service and updates the keychain only after it accepted", async () => {
    const services = await start(freshDir());
    const { op } = operator();
    const first = await op.signIn(ready(services));
    const oldPassword = keychain.get(OPERATOR_ACCOUNTS.parcel);
    if (!oldPassword) throw new Error("no parcel password kept");
    const windowCookies = first.cookies.filter((c) => c.url === services.parcel?.url);
    // A browser elsewhere signed in with the old password: the change must end its session.
    const elsewhere = await fetch(`${services.parcel?.url}/api/v1/admin/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: services.parcel?.url ?? "" },
      body: JSON.stringify({ username: services.parcel?.adminUser, password: oldPassword }),
    });
    expect(elsewhere.status).toBe(200);
    const elsewhereCookie = elsewhere.headers.getSetCookie()[0].split(";")[0];

    const wrongCurrent = await op.changePassword(
      "parcel",
      "not the password 1",
      "a new password 456",
    );
    expect(wrongCurrent).toMatchObject({ ok: false, code: "operator.password_wrong" });
    expect(keychain.get(OPERATOR_ACCOUNTS.parcel)).toBe(oldPassword);

    for (const [next, serviceCode, params] of [
      ["short", "admin.password_short", { min: 12 }],
      ["x".repeat(73), "admin.password_long", { max: 72 }],
    ] as const) {
      const refused = await op.changePassword("parcel", oldPassword, next);
      expect(refused).toMatchObject({
        ok: false,
        code: "operator.password_rule",
        serviceCode,
        params,
      });
    }
    expect(keychain.get(OPERATOR_ACCOUNTS.parcel)).toBe(oldPassword);
    expect(await status(parcelAdmin(services), windowCookies)).toBe(200);

    const changed = await op.changePassword("parcel", oldPassword, "a new password 456");
    if (!changed.ok) throw new Error(`change refused: ${changed.code}`);
    expect(keychain.get(OPERATOR_ACCOUNTS.parcel)).toBe("a new password 456");
    expect(op.revealPassword("parcel")).toBe("a new password 456");
    expect(changed.cookies.map((c) => c.name)).toEqual(["pt_admin"]);
    // Every other session ended (the window's and the other browser's); the returned one works.
    expect(await status(parcelAdmin(services), windowCookies)).toBe(401);
    const other = await fetch(parcelAdmin(services), { headers: { cookie: elsewhereCookie } });
    expect(other.status).toBe(401);
    expect(await status(parcelAdmin(services), changed.cookies)).toBe(200);
    const login = (password: string) =>
      fetch(`${services.parcel?.url}/api/v1/admin/login`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: services.parcel?.url ?? "" },
        body: JSON.stringify({ username: services.parcel?.adminUser, password }),
      }).then((r) => r.status);
    expect(await login(oldPassword)).toBe(401);
    expect(await login("a new password 456")).toBe(200);

    // The next start (no generated password then) signs in with the new one from the keychain.
    const parcel = services.parcel;
    if (!parcel) throw new Error("no parcel service");
    const again = await operator().op.signIn({
      parcel: { ...parcel, generatedAdminPassword: null },
      proxy: null,
    });
    expect(again.parcel).toMatchObject({ state: "signed-in", created: false });
  });

  it("says a service that does not answer is unreachable, and changes need running services", async () => {
    const services = await start(freshDir());
    const { op } = operator();
    const info = ready(services);
    await stop(services);
    const result = await op.signIn(info);
    expect(result.parcel).toMatchObject({
      state: "failed",
      failure: { code: "operator.service_unreachable" },
    });
    expect(result.proxy).toMatchObject({
      state: "failed",
      failure: { code: "operator.service_unreachable" },
    });
    expect(keychain.get(OPERATOR_ACCOUNTS.proxy)).toBeNull();
    const none = createOperator({ secrets: keychain });
    expect(await none.changePassword("proxy", "a", "b")).toMatchObject({
      ok: false,
      code: "operator.not_running",
    });
  });
});

describe("desktop operator sign-in without a keychain", () => {
  it("signs in to the parcel console for this run but never sets up the proxy with a password nobody keeps", async () => {
    const dataDir = freshDir();
    const fail = (): never => {
      throw new Error("keychain: Couldn't access platform storage: AccessDenied");
    };
    const choice = chooseSecretStore({
      keyring: { get: fail, set: fail, delete: fail, list: fail },
      safeStorage: null,
      fallbackFile: join(dataDir, "secrets.json"),
      platform: "linux",
    });
    if (choice.ok) throw new Error("expected a refusal");
    const services = await start(dataDir);
    const op = createOperator({ secrets: unavailableStore(choice) });
    const result = await op.signIn(ready(services));
    expect(result.parcel).toMatchObject({ state: "signed-in", created: true, kept: false });
    expect(result.proxy).toEqual({
      state: "failed",
      failure: { code: "operator.keychain", message: choice.message },
    });
    const proxyStatus = await fetch(`${services.proxy?.url}/api/v1/auth/status`);
    expect(await proxyStatus.json()).toMatchObject({ initialized: false });
    expect(existsSync(join(dataDir, "proxy", "setup-token"))).toBe(true);
    expect(() => op.revealPassword("parcel")).toThrow(choice.message);
    expect(await status(parcelAdmin(services), result.cookies)).toBe(200);
  });
});
