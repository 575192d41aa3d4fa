import { useEffect, useMemo, useRef, useState, type Dispatch, type SetStateAction } from "react";
import { ApiError, api } from "../api.js";
import { knowsCode } from "../errors-i18n.js";
import type {
  RecipientView as PickupView,
  ResolveInput,
} from "../../../server/contract/parcel-views.js";
import { normalizeInput } from "./code.js";
import type { Problem } from "./forms.js";
import { holdsGrant, rememberGrant } from "./grant.js";
import type { PickupKey } from "./i18n.js";

export type Phase = "checking" | "code" | "password" | "files";

/**
 * The pickup page's setters and what it keeps across renders: the same object on every render,
 * so the steps below can take it without going stale. The code and password stay in memory
 * only, to renew the 10-minute authorisation quietly.
 */
export interface Controls {
  setPhase: Dispatch<SetStateAction<Phase>>;
  setView: Dispatch<SetStateAction<PickupView | null>>;
  setProblem: Dispatch<SetStateAction<Problem | null>>;
  setEnded: Dispatch<SetStateAction<boolean>>;
  setFinished: Dispatch<SetStateAction<boolean>>;
  setNotice: Dispatch<SetStateAction<PickupKey | null>>;
  setBusy: Dispatch<SetStateAction<boolean>>;
  setBlockedUntil: Dispatch<SetStateAction<number>>;
  code: { current: string };
  password: { current: string };
  /** When the service last granted the pickup (ms). */
  grantedAt: { current: number };
  /** Set when a download or text started here with one download left. */
  tookLast: { current: boolean };
  timers: { current: Array<ReturnType<typeof setTimeout>> };
}

/** The page's state, and the controls that change it. */
export function usePickupState() {
  const [phase, setPhase] = useState<Phase>("checking");
  const [view, setView] = useState<PickupView | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [ended, setEnded] = useState(false);
  /** This page used the parcel's last download: it is done, which is a success. */
  const [finished, setFinished] = useState(false);
  const [notice, setNotice] = useState<PickupKey | null>(null);
  const [busy, setBusy] = useState(false);
  const [blockedUntil, setBlockedUntil] = useState(0);
  const code = useRef("");
  const password = useRef("");
  const grantedAt = useRef(0);
  const tookLast = useRef(false);
  const timers = useRef<Array<ReturnType<typeof setTimeout>>>([]);
  const controls = useMemo<Controls>(
    () => ({
      setPhase,
      setView,
      setProblem,
      setEnded,
      setFinished,
      setNotice,
      setBusy,
      setBlockedUntil,
      code,
      password,
      grantedAt,
      tookLast,
      timers,
    }),
    [],
  );
  return { phase, view, problem, ended, finished, notice, busy, blockedUntil, controls };
}

/** The problem a 404, 410 or 423 names when the service's code does not say more. */
function endingKey(status: number): PickupKey | undefined {
  if (status === 404) return "notFound";
  if (status === 410) return "gone";
  if (status === 423) return "locked";
  return undefined;
}

/** What the page shows after the service refused a code or password. */
function showRefusal(c: Controls, err: ApiError, plain: string, pass: string, quiet: boolean) {
  const left = err.body.attempts_left;
  if (err.status === 401 && err.body.password_required && left === 0) {
    // That wrong password was the last try: the parcel is locked now.
    c.code.current = "";
    c.password.current = "";
    c.setPhase("code");
    c.setView(null);
    c.setProblem({ key: "lockedNow" });
  } else if (err.status === 401 && err.body.password_required) {
    c.code.current = plain;
    c.password.current = "";
    c.setPhase("password");
    c.setProblem(
      !pass
        ? null
        : typeof left !== "number"
          ? { key: "wrongPassword" }
          : { key: "wrongPasswordLeft", vars: { n: left } },
    );
  } else if (err.code === "pickup.inbox_code") {
    // Not a parcel's code but the open inbox's: the page offers its send page instead.
    c.setPhase("code");
    c.setView(null);
    c.setProblem({ inbox: { code: plain, name: String(err.params.name ?? "") } });
  } else if (err.status === 429) {
    const until = Math.floor(Date.now() / 1000) + (err.retryAfter ?? 60);
    c.setBlockedUntil(until);
    c.setProblem({ key: "tooMany", wait: until - Math.floor(Date.now() / 1000) });
  } else {
    const key = endingKey(err.status);
    // The service's code says which ending it is (expired, used up, withdrawn).
    c.setProblem(key && !knowsCode(err.code) ? { key } : { error: err });
    if (key) {
      // While the files are on screen (e.g. after the last download) they stay listed.
      if (quiet) c.setEnded(true);
      else {
        c.setPhase("code");
        c.setView(null);
      }
    }
  }
}

/** Resolves the code; true on success. `quiet` keeps the files on screen while renewing. */
export async function resolveCode(
  c: Controls,
  plain: string,
  pass: string,
  quiet = false,
): Promise<boolean> {
  c.setBusy(true);
  if (!quiet) c.setProblem(null);
  try {
    const body: ResolveInput = pass ? { code: plain, password: pass } : { code: plain };
    const answer = await api("POST /pickup/resolve", { body });
    rememberGrant(true);
    c.code.current = plain;
    c.password.current = pass;
    c.grantedAt.current = Date.now();
    c.setView(answer);
    c.setPhase("files");
    c.setProblem(null);
    // Another parcel opened in this tab starts without the last one's "download started";
    // a renewal in the middle of a download keeps it.
    if (!quiet) c.setNotice(null);
    c.setEnded(false);
    c.setFinished(false);
    c.tookLast.current = false;
    return true;
  } catch (err) {
    // Whatever went wrong, a first attempt from a link ends on the form, never on "opening".
    c.setPhase((p) => (p === "checking" ? "code" : p));
    if (err instanceof ApiError) showRefusal(c, err, plain, pass, quiet);
    else c.setProblem({ error: err });
    return false;
  } finally {
    c.setBusy(false);
  }
}

/** `GET /pickup`; a lapsed authorisation (401) is renewed with the code kept in memory. */
export async function refreshView(c: Controls): Promise<void> {
  try {
    const answer = await api("GET /pickup");
    c.setView(answer);
    if (answer.downloads_left > 0 && c.tookLast.current) {
      // The last download never started (no byte sent, so it was given back): not done.
      c.tookLast.current = false;
      c.setFinished(false);
      c.setEnded(false);
      c.setNotice(null);
    }
  } catch (err) {
    if (
      c.tookLast.current &&
      err instanceof ApiError &&
      err.status === 410 &&
      err.code === "parcel.exhausted"
    ) {
      // Used up by this page's own last download: the success already said so.
      c.setEnded(true);
      c.setFinished(true);
      return;
    }
    if (err instanceof ApiError && err.status === 401) {
      rememberGrant(false);
      if (c.code.current) await resolveCode(c, c.code.current, c.password.current, true);
      else {
        c.setPhase("code");
        c.setView(null);
        c.setProblem({ key: "sessionLapsed" });
      }
    } else if (err instanceof ApiError && (err.status === 410 || err.status === 404)) {
      c.setEnded(true);
      c.setProblem(knowsCode(err.code) ? { error: err } : { key: "gone" });
    } else c.setProblem({ error: err });
  }
}

/**
 * Opens the parcel a link names, or the one this tab holds an authorisation for (a reload
 * within the 10 minutes picks up where it was); a fresh visit shows the form.
 */
export function useOpenParcel(rest: string, c: Controls): void {
  useEffect(() => {
    const plain = normalizeInput(rest);
    if (plain) {
      void resolveCode(c, plain, "");
      return;
    }
    if (!holdsGrant()) {
      c.setPhase((p) => (p === "checking" ? "code" : p));
      return;
    }
    let alive = true;
    api("GET /pickup").then(
      (answer) => {
        if (!alive) return;
        c.grantedAt.current = Date.now();
        c.setView(answer);
        c.setPhase("files");
      },
      () => {
        rememberGrant(false);
        if (alive) c.setPhase((p) => (p === "checking" ? "code" : p));
      },
    );
    return () => {
      alive = false;
    };
  }, [rest, c]);

  useEffect(() => () => c.timers.current.forEach(clearTimeout), [c]);
}
