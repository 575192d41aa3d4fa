import { useCallback, useEffect, useRef, useState, type MouseEvent } from "react";
import { ApiError, api } from "../api.js";
import { knowsCode } from "../errors-i18n.js";
import type { AreaProps } from "../app.js";
import { useT } from "../i18n.js";
import { navigate } from "../route.js";
import type {
  RecipientView as PickupView,
  ResolveInput,
} from "../../../server/contract/parcel-views.js";
import { Notice } from "../ui/notice.js";
import { normalizeInput } from "./code.js";
import { CodeForm, PasswordForm, ProblemText, type Problem } from "./forms.js";
import { holdsGrant, rememberGrant } from "./grant.js";
import { pickupDict, type PickupKey } from "./i18n.js";
import { FilesView } from "./files-view.js";
import "./pickup.css";
import { MINUTE_MS } from "../../../server/contract/time-units.js";

/** The pickup cookie lasts 10 minutes; renew it a little before that. */
const GRANT_MS = 9 * MINUTE_MS;

type Phase = "checking" | "code" | "password" | "files";

/**
 * `#/pickup` and `#/pickup/<code>`: code (and password when the parcel has one), then the
 * files. Downloads are plain links so the browser streams them to disk with its own progress.
 * The code and password stay in memory only, to renew the 10-minute authorisation quietly.
 */
export default function PickupScreen({ rest }: AreaProps) {
  const t = useT(pickupDict);
  const [phase, setPhase] = useState<Phase>("checking");
  const [view, setView] = useState<PickupView | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [ended, setEnded] = useState(false);
  /** This page used the parcel's last download: it is done, which is a success. */
  const [finished, setFinished] = useState(false);
  /** Set when a download or text started here with one download left. */
  const tookLast = useRef(false);
  const [notice, setNotice] = useState<PickupKey | null>(null);
  const [busy, setBusy] = useState(false);
  const [blockedUntil, setBlockedUntil] = useState(0);
  const code = useRef("");
  const password = useRef("");
  const grantedAt = useRef(0);
  const timers = useRef<Array<ReturnType<typeof setTimeout>>>([]);

  /** Resolves the code; true on success. `quiet` keeps the files on screen while renewing. */
  const resolve = useCallback(async (plain: string, pass: string, quiet = false) => {
    setBusy(true);
    if (!quiet) setProblem(null);
    try {
      const body: ResolveInput = pass ? { code: plain, password: pass } : { code: plain };
      const answer = await api("POST /pickup/resolve", { body });
      rememberGrant(true);
      code.current = plain;
      password.current = pass;
      grantedAt.current = Date.now();
      setView(answer);
      setPhase("files");
      setProblem(null);
      setEnded(false);
      setFinished(false);
      tookLast.current = false;
      return true;
    } catch (err) {
      // Whatever went wrong, a first attempt from a link ends on the form, never on "opening".
      setPhase((p) => (p === "checking" ? "code" : p));
      if (!(err instanceof ApiError)) {
        setProblem({ error: err });
        return false;
      }
      const left = err.body.attempts_left;
      if (err.status === 401 && err.body.password_required && left === 0) {
        // That wrong password was the last try: the parcel is locked now.
        code.current = "";
        password.current = "";
        setPhase("code");
        setView(null);
        setProblem({ key: "lockedNow" });
      } else if (err.status === 401 && err.body.password_required) {
        code.current = plain;
        password.current = "";
        setPhase("password");
        setProblem(
          !pass
            ? null
            : typeof left !== "number"
              ? { key: "wrongPassword" }
              : { key: "wrongPasswordLeft", vars: { n: left } },
        );
      } else if (err.status === 429) {
        const until = Math.floor(Date.now() / 1000) + (err.retryAfter ?? 60);
        setBlockedUntil(until);
        setProblem({ key: "tooMany", wait: until - Math.floor(Date.now() / 1000) });
      } else {
        const key: PickupKey | undefined =
          err.status === 404
            ? "notFound"
            : err.status === 410
              ? "gone"
              : err.status === 423
                ? "locked"
                : undefined;
        // The service's code says which ending it is (expired, used up, withdrawn).
        setProblem(key && !knowsCode(err.code) ? { key } : { error: err });
        if (err.status === 404 || err.status === 410 || err.status === 423) {
          // While the files are on screen (e.g. after the last download) they stay listed.
          if (quiet) setEnded(true);
          else {
            setPhase("code");
            setView(null);
          }
        }
      }
      return false;
    } finally {
      setBusy(false);
    }
  }, []);

  /** `GET /pickup`; a lapsed authorisation (401) is renewed with the code kept in memory. */
  const refresh = useCallback(async () => {
    try {
      const answer = await api("GET /pickup");
      setView(answer);
      if (answer.downloads_left > 0 && tookLast.current) {
        // The last download never started (no byte sent, so it was given back): not done.
        tookLast.current = false;
        setFinished(false);
        setEnded(false);
        setNotice(null);
      }
    } catch (err) {
      if (
        tookLast.current &&
        err instanceof ApiError &&
        err.status === 410 &&
        err.code === "parcel.exhausted"
      ) {
        // Used up by this page's own last download: the success already said so.
        setEnded(true);
        setFinished(true);
        return;
      }
      if (err instanceof ApiError && err.status === 401) {
        rememberGrant(false);
        if (code.current) await resolve(code.current, password.current, true);
        else {
          setPhase("code");
          setView(null);
          setProblem({ key: "sessionLapsed" });
        }
      } else if (err instanceof ApiError && (err.status === 410 || err.status === 404)) {
        setEnded(true);
        setProblem(knowsCode(err.code) ? { error: err } : { key: "gone" });
      } else setProblem({ error: err });
    }
  }, [resolve]);

  useEffect(() => {
    const plain = normalizeInput(rest);
    if (plain) {
      void resolve(plain, "");
      return;
    }
    // A reload within the 10 minutes picks up where it was; a fresh visit shows the form.
    if (!holdsGrant()) {
      setPhase((p) => (p === "checking" ? "code" : p));
      return;
    }
    let alive = true;
    api("GET /pickup").then(
      (answer) => {
        if (!alive) return;
        grantedAt.current = Date.now();
        setView(answer);
        setPhase("files");
      },
      () => {
        rememberGrant(false);
        if (alive) setPhase((p) => (p === "checking" ? "code" : p));
      },
    );
    return () => {
      alive = false;
    };
  }, [rest, resolve]);

  useEffect(() => () => timers.current.forEach(clearTimeout), []);

  /** Notes that one download starts here; the last one shows the parcel as done at once. */
  const usedOne = (last: boolean) => {
    if (!last) return;
    tookLast.current = true;
    // After the click has run its course: a link taken off the page would not download.
    timers.current.push(
      setTimeout(() => {
        setFinished(true);
        setEnded(true);
      }, 0),
    );
  };

  const afterDownload = (last: boolean) => {
    setNotice(last ? "lastDone" : "started");
    usedOne(last);
    // The download is counted when it starts: show the new count shortly after.
    timers.current.push(setTimeout(() => void refresh(), 1000));
    timers.current.push(setTimeout(() => void refresh(), 4000));
  };

  const onDownload = (e: MouseEvent<HTMLAnchorElement>) => {
    const link = e.currentTarget;
    const last = (view?.downloads_left ?? 0) <= 1;
    if (Date.now() - grantedAt.current < GRANT_MS || !code.current) {
      afterDownload(last);
      return;
    }
    // The authorisation is about to lapse: renew it first, then start the same download.
    e.preventDefault();
    void resolve(code.current, password.current, true).then((ok) => {
      if (ok) {
        afterDownload(last);
        link.click();
      }
    });
  };

  /**
   * Reads a text file to show it on the page: a real download of that file (it counts one),
   * renewing a lapsed authorisation first like a download link does.
   */
  const readText = async (fileId: string): Promise<string> => {
    if (Date.now() - grantedAt.current >= GRANT_MS && code.current) {
      if (!(await resolve(code.current, password.current, true))) throw new Error("lapsed");
    }
    const last = (view?.downloads_left ?? 0) <= 1;
    const res = await api.raw("GET /pickup/files/:file/download", { params: { file: fileId } });
    const bytes = await res.arrayBuffer();
    if (last) {
      setNotice("lastDone");
      usedOne(true);
    }
    timers.current.push(setTimeout(() => void refresh(), 300));
    return new TextDecoder("utf-8").decode(bytes);
  };

  const other = () => {
    rememberGrant(false);
    code.current = "";
    password.current = "";
    setEnded(false);
    setFinished(false);
    tookLast.current = false;
    setView(null);
    setProblem(null);
    setNotice(null);
    setPhase("code");
    if (rest) navigate("pickup");
  };

  return (
    <div className={`pickup-screen pickup-${phase}`}>
      <h1>{t("heading")}</h1>
      {phase === "code" ? <p className="muted">{t("lead")}</p> : null}
      <div aria-live="polite">
        <ProblemText problem={problem} />
      </div>
      {phase === "checking" ? (
        <p className="muted" role="status">
          {t("opening")}
        </p>
      ) : phase === "code" ? (
        <CodeForm
          initial={normalizeInput(rest)}
          busy={busy}
          blockedUntil={blockedUntil}
          onSubmit={(plain) => void resolve(plain, "")}
        />
      ) : phase === "password" ? (
        <PasswordForm
          busy={busy}
          blockedUntil={blockedUntil}
          onSubmit={(pass) => void resolve(code.current, pass)}
          onOther={other}
        />
      ) : view ? (
        <>
          {notice ? <Notice kind="ok">{t(notice)}</Notice> : null}
          <FilesView
            view={view}
            ended={ended}
            finished={finished}
            onDownload={onDownload}
            onReadText={readText}
            onOther={other}
          />
        </>
      ) : null}
    </div>
  );
}
