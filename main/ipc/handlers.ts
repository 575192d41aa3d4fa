import { z } from "zod";
import {
  INVOKE_CHANNELS,
  type DesktopPasswordResult,
  type InvokeChannel,
  type IpcReply,
  type ServiceInfo,
} from "../../preload/contract.js";
import type { DesktopCookie } from "../operator/cookies.js";
import type { Operator } from "../operator/operator.js";
import type { PasswordResult } from "../operator/types.js";
import { NO_KEYCHAIN } from "../secrets/choose.js";
import { tokenAccount, type SecretStore } from "../secrets/keychain.js";
import {
  interfaceNames,
  manageToken,
  noArgs,
  operatorService,
  parcelId,
  password,
  settingsPatch,
  webUrl,
} from "./schemas.js";
import { isOwnSender, type IpcSender } from "./sender.js";

export type { IpcSender };

/** One IPC handler: who called (the frame's URL) and the arguments as they came. */
export type IpcHandler = (sender: IpcSender, ...args: unknown[]) => Promise<IpcReply>;

/** Every invoke channel has exactly one handler (a new channel does not compile without one). */
export type IpcHandlers = Record<InvokeChannel, IpcHandler>;

export interface IpcDeps {
  /** The services' own origins (what the window shows), asked on every call: ports change. */
  origins(): readonly string[];
  info(): ServiceInfo;
  /** Opens an http(s) address in the system browser. */
  openExternal(url: string): Promise<void> | void;
  /** Where manage tokens live (the chosen secret store). */
  secrets: SecretStore;
  setupToken(): string | null;
  operator: Pick<Operator, "revealPassword" | "changePassword" | "rememberPassword">;
  /** Puts a fresh sign-in into the window's own session (Electron `session.cookies.set`). */
  setWindowCookies(cookies: DesktopCookie[]): Promise<void> | void;
  settings: { get(): unknown; set(patch: Record<string, unknown>): unknown };
  entries: { list(): unknown; choose(interfaces: string[]): unknown };
  /** An unexpected failure, for the log; the page only hears that it failed. */
  onError?(channel: string, error: unknown): void;
}

const PREFIX = tokenAccount("");
const PARCEL_ID = /^[A-Za-z0-9_-]{16,64}$/;

function refusal(code: Exclude<IpcReply, { ok: true }>["code"], message: string): IpcReply {
  return { ok: false, code, message };
}

export function createIpcHandlers(deps: IpcDeps): IpcHandlers {
  /**
   * Checks the sender, then the arguments, then runs. Refusals are answers, not exceptions, so
   * the page gets a code and a sentence; the arguments themselves are never echoed back.
   */
  function handler<A extends unknown[]>(
    channel: InvokeChannel,
    schema: z.ZodType<A>,
    run: (...args: A) => unknown,
  ): IpcHandler {
    return async (sender, ...args) => {
      if (!isOwnSender(sender, deps.origins()))
        return refusal("ipc.foreign_sender", "Only Gatehouse's own pages may ask for this.");
      const parsed = schema.safeParse(args);
      if (!parsed.success)
        return refusal("ipc.bad_arguments", "The request's arguments are not valid.");
      try {
        return { ok: true, value: (await run(...parsed.data)) ?? null };
      } catch (err) {
        if ((err as { code?: unknown } | null)?.code === NO_KEYCHAIN)
          return refusal(NO_KEYCHAIN, (err as Error).message);
        deps.onError?.(INVOKE_CHANNELS[channel], err);
        return refusal("ipc.failed", "Gatehouse could not do this.");
      }
    };
  }

  /** The window's session takes the new cookies; the page gets the outcome without them. */
  async function signedInWindow(result: PasswordResult): Promise<DesktopPasswordResult> {
    if (!result.ok) return result;
    await deps.setWindowCookies(result.cookies);
    return { ok: true };
  }

  const { secrets, operator } = deps;
  return {
    info: handler("info", noArgs, () => deps.info()),
    openExternal: handler("openExternal", z.tuple([webUrl]), (url) => deps.openExternal(url)),
    tokenSave: handler("tokenSave", z.tuple([parcelId, manageToken]), (id, token) => {
      secrets.set(tokenAccount(id), token);
    }),
    tokenGet: handler("tokenGet", z.tuple([parcelId]), (id) => secrets.get(tokenAccount(id))),
    tokenRemove: handler("tokenRemove", z.tuple([parcelId]), (id) => {
      secrets.delete(tokenAccount(id));
    }),
    // Only parcel tokens: the same store holds the operator's passwords.
    tokenList: handler("tokenList", noArgs, () =>
      secrets
        .list()
        .map((c) => c.account)
        .filter((a) => a.startsWith(PREFIX) && PARCEL_ID.test(a.slice(PREFIX.length)))
        .map((a) => a.slice(PREFIX.length)),
    ),
    setupToken: handler("setupToken", noArgs, () => deps.setupToken()),
    operatorRevealPassword: handler("operatorRevealPassword", z.tuple([operatorService]), (s) =>
      operator.revealPassword(s),
    ),
    operatorChangePassword: handler(
      "operatorChangePassword",
      z.tuple([operatorService, password, password]),
      async (s, current, next) => signedInWindow(await operator.changePassword(s, current, next)),
    ),
    operatorRememberPassword: handler(
      "operatorRememberPassword",
      z.tuple([operatorService, password]),
      async (s, given) => signedInWindow(await operator.rememberPassword(s, given)),
    ),
    settingsGet: handler("settingsGet", noArgs, () => deps.settings.get()),
    settingsSet: handler("settingsSet", z.tuple([settingsPatch]), (patch) =>
      deps.settings.set(patch),
    ),
    entriesList: handler("entriesList", noArgs, () => deps.entries.list()),
    entriesChoose: handler("entriesChoose", z.tuple([interfaceNames]), (names) =>
      deps.entries.choose(names),
    ),
  };
}
