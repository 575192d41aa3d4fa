import { randomBytes } from "node:crypto";
import type { SecretStore } from "../secrets/keychain.js";
import {
  answerFailure,
  markedStore,
  notRunning,
  passwordCall,
  refused,
  ruleRefusal,
  signedIn,
  signInCall,
} from "./outcomes.js";
import {
  parcelChangePassword,
  parcelLogin,
  proxyChangePassword,
  proxyInitialized,
  proxyLogin,
  proxySetup,
  type HttpOptions,
  type ServiceAnswer,
} from "./service-http.js";
import {
  OPERATOR_ACCOUNTS,
  type OperatorReadyInfo,
  type OperatorService,
  type OperatorSignIn,
  type PasswordResult,
  type ServiceSignIn,
} from "./types.js";

/**
 * The desktop operator is trusted: the app creates both administrators on first run, keeps
 * their passwords in the secret store and signs the window in to both consoles, so the
 * operator is never asked for a password on this machine. The passwords can be revealed (to
 * use a console from another machine) and changed through the services' own routes; the
 * store changes only after the service accepted the new password.
 */
export interface Operator {
  /** Signs in to every running console; remembers `ready` for later changes. */
  signIn(ready: OperatorReadyInfo): Promise<OperatorSignIn>;
  revealPassword(service: OperatorService): string | null;
  changePassword(
    service: OperatorService,
    currentPassword: string,
    newPassword: string,
  ): Promise<PasswordResult>;
  /** Checks a password the operator knows by signing in with it, then keeps it. */
  rememberPassword(service: OperatorService, password: string): Promise<PasswordResult>;
}

export interface OperatorOptions {
  secrets: SecretStore;
  fetch?: typeof fetch;
  timeoutMs?: number;
  nowMs?: () => number;
  /** A new strong password (injected so tests can see what was chosen). */
  generatePassword?: () => string;
}

/** 192 random bits: well inside the proxy's 12..72-byte rule. */
export function generateOperatorPassword(): string {
  return randomBytes(24).toString("base64url");
}

/** What every step of the operator works with. */
interface OperatorDeps {
  /** The store with every failure marked as the keychain's. */
  secrets: SecretStore;
  http: HttpOptions;
  generate: () => string;
}

/** Stores a secret; false when the store refused (the caller decides what that means). */
function keep(deps: OperatorDeps, service: OperatorService, password: string): boolean {
  try {
    deps.secrets.set(OPERATOR_ACCOUNTS[service], password);
    return true;
  } catch {
    return false;
  }
}

function restore(secrets: SecretStore, account: string, previous: string | null): void {
  if (previous === null) secrets.delete(account);
  else secrets.set(account, previous);
}

async function signInParcel(
  deps: OperatorDeps,
  info: NonNullable<OperatorReadyInfo["parcel"]>,
): Promise<ServiceSignIn> {
  const generated = info.generatedAdminPassword;
  if (generated) {
    // Kept before anything else: this is the only moment the password is known.
    const kept = keep(deps, "parcel", generated);
    const answer = await parcelLogin(deps.http, info.url, info.adminUser, generated);
    return answer.status === 200
      ? signedIn(answer, true, kept)
      : { state: "failed", failure: answerFailure(answer) };
  }
  const stored = deps.secrets.get(OPERATOR_ACCOUNTS.parcel);
  if (!stored) return { state: "need-reset", reason: "no-stored-password" };
  const answer = await parcelLogin(deps.http, info.url, info.adminUser, stored);
  if (answer.status === 200) return signedIn(answer, false, true);
  if (answer.status === 401) return { state: "need-reset", reason: "stored-password-rejected" };
  return { state: "failed", failure: answerFailure(answer) };
}

/**
 * First run of the proxy: creates its administrator with a new password, kept in the store.
 * Null when someone else finished setup meanwhile, so the caller signs in as usual.
 */
async function setUpProxy(
  deps: OperatorDeps,
  url: string,
  setupToken: string,
): Promise<ServiceSignIn | null> {
  const account = OPERATOR_ACCOUNTS.proxy;
  const previous = deps.secrets.get(account);
  const password = deps.generate();
  // Stored first: if the store refuses, no administrator is created with a password
  // nobody knows (the console's setup page still works by hand).
  deps.secrets.set(account, password);
  const answer = await proxySetup(deps.http, url, setupToken, password).catch((err: unknown) => {
    restore(deps.secrets, account, previous);
    throw err;
  });
  if (answer.status === 200) return signedIn(answer, true, true);
  restore(deps.secrets, account, previous);
  // Someone finished setup meanwhile (a browser on the setup page): sign in as usual.
  if (answer.code !== "auth.already_set_up")
    return { state: "failed", failure: answerFailure(answer) };
  return null;
}

async function signInProxy(
  deps: OperatorDeps,
  info: NonNullable<OperatorReadyInfo["proxy"]>,
): Promise<ServiceSignIn> {
  const initialized = await proxyInitialized(deps.http, info.url);
  if (initialized === null)
    return {
      state: "failed",
      failure: {
        code: "operator.unexpected_answer",
        message: "The proxy service did not say whether it is set up.",
      },
    };
  if (!initialized && info.setupToken) {
    const setUp = await setUpProxy(deps, info.url, info.setupToken);
    if (setUp) return setUp;
  }
  const stored = deps.secrets.get(OPERATOR_ACCOUNTS.proxy);
  if (!stored) return { state: "need-password", reason: "no-stored-password" };
  const answer = await proxyLogin(deps.http, info.url, stored);
  if (answer.status === 200) return signedIn(answer, false, true);
  if (answer.status === 401) return { state: "need-password", reason: "stored-password-rejected" };
  return { state: "failed", failure: answerFailure(answer) };
}

/** Signs in to every running console side by side; the window gets every session's cookies. */
async function signInAll(deps: OperatorDeps, ready: OperatorReadyInfo): Promise<OperatorSignIn> {
  const { parcel: parcelInfo, proxy: proxyInfo } = ready;
  const [parcel, proxy] = await Promise.all([
    parcelInfo ? signInCall(() => signInParcel(deps, parcelInfo)) : null,
    proxyInfo ? signInCall(() => signInProxy(deps, proxyInfo)) : null,
  ]);
  const cookies = [parcel, proxy].flatMap((r) => (r?.state === "signed-in" ? r.cookies : []));
  return { parcel, proxy, cookies };
}

/** Signs in with `password`: the session a change or a remembered password works with. */
async function login(
  deps: OperatorDeps,
  current: OperatorReadyInfo | null,
  service: OperatorService,
  password: string,
): Promise<{ answer: ServiceAnswer; url: string } | null> {
  const parcel = current?.parcel;
  const proxy = current?.proxy;
  if (service === "parcel" && parcel)
    return {
      answer: await parcelLogin(deps.http, parcel.url, parcel.adminUser, password),
      url: parcel.url,
    };
  if (service === "proxy" && proxy)
    return { answer: await proxyLogin(deps.http, proxy.url, password), url: proxy.url };
  return null;
}

async function changePassword(
  deps: OperatorDeps,
  current: OperatorReadyInfo | null,
  service: OperatorService,
  passwords: { current: string; next: string },
): Promise<PasswordResult> {
  const signed = await login(deps, current, service, passwords.current);
  if (!signed) return notRunning(service);
  const session = signed.answer;
  if (session.status !== 200) return refused(session, "The current password is wrong.");
  const change = service === "parcel" ? parcelChangePassword : proxyChangePassword;
  const answer = await change(deps.http, signed.url, session, passwords.current, passwords.next);
  if (answer.status !== 200)
    return ruleRefusal(answer) ?? refused(answer, "The current password is wrong.");
  // Only now, with the service holding the new password, does the store follow.
  if (!keep(deps, service, passwords.next))
    return {
      ok: false,
      code: "operator.keychain",
      message: "The password was changed, but the keychain could not keep the new one.",
    };
  // The change ended every other session, the window's too: this one replaces it.
  return { ok: true, cookies: session.cookies, csrf: answer.csrf ?? session.csrf };
}

async function rememberPassword(
  deps: OperatorDeps,
  current: OperatorReadyInfo | null,
  service: OperatorService,
  password: string,
): Promise<PasswordResult> {
  const signed = await login(deps, current, service, password);
  if (!signed) return notRunning(service);
  const session = signed.answer;
  if (session.status !== 200) return refused(session, "The password is wrong.");
  deps.secrets.set(OPERATOR_ACCOUNTS[service], password);
  return { ok: true, cookies: session.cookies, csrf: session.csrf };
}

export function createOperator(options: OperatorOptions): Operator {
  const deps: OperatorDeps = {
    secrets: markedStore(options.secrets),
    http: {
      fetch: options.fetch ?? fetch,
      timeoutMs: options.timeoutMs ?? 10_000,
      nowMs: options.nowMs ?? Date.now,
    },
    generate: options.generatePassword ?? generateOperatorPassword,
  };
  /** The services last signed in to: the ones a change or a remembered password goes to. */
  let current: OperatorReadyInfo | null = null;

  return {
    signIn(ready) {
      current = ready;
      return signInAll(deps, ready);
    },

    revealPassword(service) {
      // The store's own errors go to the caller as they are (a refusal keeps its code).
      return options.secrets.get(OPERATOR_ACCOUNTS[service]);
    },

    changePassword(service, currentPassword, newPassword) {
      return passwordCall(() =>
        changePassword(deps, current, service, { current: currentPassword, next: newPassword }),
      );
    },

    rememberPassword(service, password) {
      return passwordCall(() => rememberPassword(deps, current, service, password));
    },
  };
}
