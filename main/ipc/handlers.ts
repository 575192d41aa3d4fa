import { timingSafeEqual, createHash } from "node:crypto";
import { z } from "zod";
import {
  INVOKE_CHANNELS,
  type DesktopPasswordResult,
  type OpenArea,
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
  inboxMinutes,
  inboxPassword,
  interfaceNames,
  manageToken,
  noArgs,
  openArea,
  operatorService,
  parcelId,
  password,
  settingsPatch,
  webUrl,
} from "./schemas.js";
import { mayCall, senderKind, type Audience, type IpcSender, type SenderKind } from "./sender.js";

export type { IpcSender };

/**
 * Who may call each channel (see ipc/sender.ts). The app's own page may call all of them;
 * the services' pages in the window only what reveals nothing the operator keeps: no password,
 * no setup token, no token (no channel reads one back: the main process attaches a kept token
 * to the window's own requests, see secrets/owner-requests.ts), and of the settings only the
 * look.
 */
export const CHANNEL_AUDIENCE: Record<InvokeChannel, Audience> = {
  info: "window",
  open: "window",
  openExternal: "window",
  tokenSave: "window",
  tokenRemove: "window",
  // Parcel ids only: My parcels in the window lists the kept parcels by them; the tokens
  // behind them never reach a service page.
  tokenList: "window",
  setupToken: "app",
  operatorRevealPassword: "app",
  operatorChangePassword: "app",
  operatorRememberPassword: "window",
  operatorKeepsPassword: "window",
  settingsGet: "window",
  settingsSet: "window",
  entriesList: "app",
  entriesChoose: "app",
  // The inbox's code and deliveries are the operator's: the Desktop screen only.
  inboxView: "app",
  inboxOpen: "app",
  inboxClose: "app",
  inboxShowInFolder: "app",
  inboxChooseFolder: "app",
};

/** The settings a service page may change: the look both consoles share. */
const LOOK_KEYS = new Set(["language", "theme"]);

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
  /** Shows an area in the window (a service page, or the Desktop screen for "settings"). */
  open(area: OpenArea): void;
  /** Where manage tokens live (the chosen secret store). */
  secrets: SecretStore;
  setupToken(): string | null;
  operator: Pick<Operator, "revealPassword" | "changePassword" | "rememberPassword">;
  /** Puts a fresh sign-in into the window's own session (Electron `session.cookies.set`). */
  setWindowCookies(cookies: DesktopCookie[]): Promise<void> | void;
  settings: { get(): unknown; set(patch: Record<string, unknown>): unknown };
  entries: { list(): unknown; choose(interfaces: string[]): unknown };
  inbox: {
    view(): unknown;
    open(minutes: number, password: string | null): unknown;
    close(): unknown;
    showInFolder(deliveryId: string): unknown;
    chooseFolder(): unknown;
  };
  /** An unexpected failure, for the log; the page only hears that it failed. */
  onError?(channel: string, error: unknown): void;
}

const PREFIX = tokenAccount("");
const PARCEL_ID = /^[A-Za-z0-9_-]{16,64}$/;

function refusal(code: Exclude<IpcReply, { ok: true }>["code"], message: string): IpcReply {
  return { ok: false, code, message };
}

const FOREIGN = (): IpcReply =>
  refusal("ipc.foreign_sender", "Only Gatehouse's own pages may ask for this.");

/** Compares two passwords without telling by its timing how much of them matched. */
function samePassword(kept: string | null, given: string): boolean {
  if (kept === null) return false;
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(kept), digest(given));
}

/** Makes the handlers of the invoke channels, each guarded as `handler` below says. */
function handlerMaker(deps: IpcDeps) {
  /**
   * Checks the sender, then the arguments, then runs. Refusals are answers, not exceptions, so
   * the page gets a code and a sentence; the arguments themselves are never echoed back.
   */
  function handler<A extends unknown[]>(
    channel: InvokeChannel,
    schema: z.ZodType<A>,
    run: (...args: A) => unknown,
    allowed: (kind: SenderKind, args: A) => boolean = () => true,
  ): IpcHandler {
    return async (sender, ...args) => {
      const kind = senderKind(sender, deps.origins());
      if (!mayCall(kind, CHANNEL_AUDIENCE[channel])) return FOREIGN();
      const parsed = schema.safeParse(args);
      if (!parsed.success)
        return refusal("ipc.bad_arguments", "The request's arguments are not valid.");
      if (!allowed(kind, parsed.data)) return FOREIGN();
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
  return handler;
}

export function createIpcHandlers(deps: IpcDeps): IpcHandlers {
  const handler = handlerMaker(deps);
  /** The window's session takes the new cookies; the page gets the outcome without them. */
  async function signedInWindow(result: PasswordResult): Promise<DesktopPasswordResult> {
    if (!result.ok) return result;
    await deps.setWindowCookies(result.cookies);
    return { ok: true };
  }

  const { secrets, operator } = deps;
  return {
    info: handler("info", noArgs, () => deps.info()),
    open: handler("open", z.tuple([openArea]), (area) => deps.open(area)),
    openExternal: handler("openExternal", z.tuple([webUrl]), (url) => deps.openExternal(url)),
    tokenSave: handler("tokenSave", z.tuple([parcelId, manageToken]), (id, token) => {
      secrets.set(tokenAccount(id), token);
    }),
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
    // Whether the app keeps this very password: a yes or no, never the password.
    operatorKeepsPassword: handler(
      "operatorKeepsPassword",
      z.tuple([operatorService, password]),
      (s, given) => samePassword(operator.revealPassword(s), given),
    ),
    settingsGet: handler("settingsGet", noArgs, () => deps.settings.get()),
    settingsSet: handler(
      "settingsSet",
      z.tuple([settingsPatch]),
      (patch) => deps.settings.set(patch),
      // A service page follows the console's pickers (language, theme) and nothing more.
      (kind, [patch]) => kind === "app" || Object.keys(patch).every((k) => LOOK_KEYS.has(k)),
    ),
    entriesList: handler("entriesList", noArgs, () => deps.entries.list()),
    entriesChoose: handler("entriesChoose", z.tuple([interfaceNames]), (names) =>
      deps.entries.choose(names),
    ),
    inboxView: handler("inboxView", noArgs, () => deps.inbox.view()),
    inboxOpen: handler("inboxOpen", z.tuple([inboxMinutes, inboxPassword]), (minutes, pw) =>
      deps.inbox.open(minutes, pw),
    ),
    inboxClose: handler("inboxClose", noArgs, () => deps.inbox.close()),
    inboxShowInFolder: handler("inboxShowInFolder", z.tuple([parcelId]), (id) =>
      deps.inbox.showInFolder(id),
    ),
    inboxChooseFolder: handler("inboxChooseFolder", noArgs, () => deps.inbox.chooseFolder()),
  };
}
