import type { DesktopCookie } from "./cookies.js";

/** The two consoles the desktop operator administers. */
export type OperatorService = "parcel" | "proxy";

export const OPERATOR_SERVICES: readonly OperatorService[] = ["parcel", "proxy"];

/** Keychain accounts of the operator's passwords (service `Gatehouse`, beside the tokens). */
export const OPERATOR_ACCOUNTS: Readonly<Record<OperatorService, string>> = {
  parcel: "operator:parcel-admin",
  proxy: "operator:proxy-admin",
};

/**
 * What the services report when they are ready, as far as signing in is concerned (a subset
 * of the host protocol's `ready` message).
 */
export interface OperatorReadyInfo {
  parcel: { url: string; adminUser: string; generatedAdminPassword: string | null } | null;
  proxy: { url: string; setupToken: string | null } | null;
}

export type OperatorFailureCode =
  | "operator.service_unreachable"
  | "operator.rate_limited"
  | "operator.keychain"
  | "operator.unexpected_answer";

export interface OperatorFailure {
  code: OperatorFailureCode;
  message: string;
}

export type PasswordProblem = "no-stored-password" | "stored-password-rejected";

/** The outcome of signing in to one console. */
export type ServiceSignIn =
  | {
      state: "signed-in";
      /** This run created the administrator's password (first run, or after a reset). */
      created: boolean;
      /** The password is in the secret store (false only when the store refused it). */
      kept: boolean;
      cookies: DesktopCookie[];
      csrf: string | null;
    }
  /** Parcel: restart the services with `--reset-admin-password`, then sign in again. */
  | { state: "need-reset"; reason: PasswordProblem }
  /**
   * Proxy: it has an administrator whose password the desktop does not know (set up in a
   * browser or headless earlier). The console's own sign-in page works, and
   * `rememberPassword("proxy", ...)` keeps the password once the operator gives it.
   */
  | { state: "need-password"; reason: PasswordProblem }
  | { state: "failed"; failure: OperatorFailure };

export interface OperatorSignIn {
  parcel: ServiceSignIn | null;
  proxy: ServiceSignIn | null;
  /** Every cookie to set in the window's session (both consoles). */
  cookies: DesktopCookie[];
}

export type PasswordRefusalCode =
  | OperatorFailureCode
  | "operator.not_running"
  | "operator.password_wrong"
  | "operator.password_rule";

/** The result of changing or remembering a password. */
export type PasswordResult =
  | { ok: true; cookies: DesktopCookie[]; csrf: string | null }
  | {
      ok: false;
      code: PasswordRefusalCode;
      message: string;
      /** The service's own code and values, when the service refused (e.g. a length rule). */
      serviceCode?: string;
      params?: Record<string, unknown>;
    };
