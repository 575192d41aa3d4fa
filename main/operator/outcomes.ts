import type { SecretStore } from "../secrets/keychain.js";
import { ServiceUnreachable, type ServiceAnswer } from "./service-http.js";
import type { OperatorFailure, OperatorService, PasswordResult, ServiceSignIn } from "./types.js";

/** How the operator's calls end, in the typed shapes the window shows. */

/** A secret store call that failed; the store's own sentence says why. */
export class OperatorKeychainError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "OperatorKeychainError";
  }
}

/**
 * The store with every failure marked as the keychain's, so a keychain that worked at start
 * and then failed (locked meanwhile) ends a sign-in as a keychain failure, not a crash.
 */
export function markedStore(secrets: SecretStore): SecretStore {
  const marked =
    <A extends unknown[], R>(call: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return call(...args);
      } catch (err) {
        const first = String((err as Error)?.message ?? err).split("\n")[0];
        throw new OperatorKeychainError(first, err);
      }
    };
  return {
    get: marked((account: string) => secrets.get(account)),
    set: marked((account: string, secret: string) => secrets.set(account, secret)),
    delete: marked((account: string) => secrets.delete(account)),
    list: marked(() => secrets.list()),
  };
}

/** An exception of an operator call as a failure; anything else is a bug and is rethrown. */
export function failureOf(err: unknown): OperatorFailure {
  if (err instanceof ServiceUnreachable)
    return { code: "operator.service_unreachable", message: "The service did not answer." };
  if (err instanceof OperatorKeychainError)
    return { code: "operator.keychain", message: err.message };
  throw err;
}

export function answerFailure(answer: ServiceAnswer): OperatorFailure {
  if (answer.status === 429)
    return {
      code: "operator.rate_limited",
      message: "Too many failed sign-ins from this machine; try again later.",
    };
  return {
    code: "operator.unexpected_answer",
    message: `The service answered ${answer.status}${answer.code ? ` (${answer.code})` : ""}.`,
  };
}

export function signedIn(answer: ServiceAnswer, created: boolean, kept: boolean): ServiceSignIn {
  return { state: "signed-in", created, kept, cookies: answer.cookies, csrf: answer.csrf };
}

/** A sign-in or change the service refused: a wrong password, or what `answerFailure` says. */
export function refused(answer: ServiceAnswer, wrongPassword: string): PasswordResult {
  const serviceCode = answer.code ?? undefined;
  if (answer.status === 401)
    return { ok: false, code: "operator.password_wrong", message: wrongPassword, serviceCode };
  return { ok: false, ...answerFailure(answer), serviceCode };
}

/** Codes both services give a new password that breaks their length rule. */
const PASSWORD_RULE = /^(auth|admin)\.password_(short|long)$/;

/** The service refused the new password itself (its length rule): its sentence and values. */
export function ruleRefusal(answer: ServiceAnswer): PasswordResult | null {
  if (answer.status !== 400 || !PASSWORD_RULE.test(answer.code ?? "")) return null;
  return {
    ok: false,
    code: "operator.password_rule",
    message: answer.error ?? "The service refused the new password.",
    serviceCode: answer.code ?? undefined,
    params: answer.params ?? undefined,
  };
}

export function notRunning(service: OperatorService): PasswordResult {
  return {
    ok: false,
    code: "operator.not_running",
    message: `The ${service} service is not running.`,
  };
}

export async function passwordCall(run: () => Promise<PasswordResult>): Promise<PasswordResult> {
  try {
    return await run();
  } catch (err) {
    return { ok: false, ...failureOf(err) };
  }
}

export async function signInCall(run: () => Promise<ServiceSignIn>): Promise<ServiceSignIn> {
  try {
    return await run();
  } catch (err) {
    return { state: "failed", failure: failureOf(err) };
  }
}
