import { useCallback, useEffect, useId, useRef, useState, type MouseEvent } from "react";
import { formatDuration } from "../../shared/format.js";
import { api, ApiError } from "../api.js";
import type { AreaProps } from "../app.js";
import { useT } from "../i18n.js";
import { navigate } from "../route.js";
import { useApp } from "../store.js";
import type { PickupView } from "../types.js";
import { useNow } from "../ui/countdown.js";
import { useErrorText } from "../ui/errors.js";
import { Notice } from "../ui/notice.js";
import { groupCode, MAX_CODE, MIN_CODE, normalizeInput } from "./code.js";
import { pickupDict, type PickupKey } from "./i18n.js";
import { FilesView } from "./files-view.js";
import "./pickup.css";

/** The pickup cookie lasts 10 minutes; renew it a little before that. */
const GRANT_MS = 9 * 60 * 1000;

type Phase = "checking" | "code" | "password" | "files";

interface Problem {
  key?: PickupKey;
  error?: unknown;
  /** Seconds the service asked us to wait (429); stated once, the buttons count down. */
  wait?: number;
}

function ProblemText({ problem }: { problem: Problem | null }) {
  const t = useT(pickupDict);
  const lang = useApp((s) => s.lang);
  const describe = useErrorText();
  if (!problem) return null;
  const text = problem.key ? t(problem.key) : describe(problem.error);
  const wait = problem.wait ?? 0;
  return (
    <Notice kind={problem.key === "sessionLapsed" ? "info" : "error"}>
      {text}
      {wait > 0 ? ` ${t("waitFor", { time: formatDuration(wait, lang) })}` : ""}
    </Notice>
  );
}

/** The submit button's text: busy, counting down a 429 wait, or its action. */
function SubmitLabel({
  busy,
  blockedUntil,
  idle,
}: {
  busy: boolean;
  blockedUntil: number;
  idle: string;
}) {
  const t = useT(pickupDict);
  const lang = useApp((s) => s.lang);
  const now = useNow(1000);
  if (busy) return <>{t("opening")}</>;
  if (blockedUntil > now)
    return <>{t("waitButton", { time: formatDuration(blockedUntil - now, lang) })}</>;
  return <>{idle}</>;
}

function CodeForm({
  initial,
  busy,
  blockedUntil,
  onSubmit,
}: {
  initial: string;
  busy: boolean;
  blockedUntil: number;
  onSubmit(code: string): void;
}) {
  const t = useT(pickupDict);
  const policy = useApp((s) => s.policy);
  const length = policy.phase === "ready" ? policy.policy.code_length : 0;
  const [value, setValue] = useState(() => groupCode(initial.slice(0, MAX_CODE)));
  const id = useId();
  const now = useNow(1000);
  const plain = normalizeInput(value);
  const complete = plain.length >= MIN_CODE;
  return (
    <form
      className="pickup-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (complete && !busy) onSubmit(plain);
      }}
    >
      <label htmlFor={id} className="big-label">
        {t("code")}
      </label>
      <input
        id={id}
        className="code-input"
        value={value}
        autoComplete="off"
        autoCorrect="off"
        autoCapitalize="characters"
        spellCheck={false}
        enterKeyHint="go"
        aria-describedby={`${id}-hint`}
        placeholder={groupCode("ABC123XYZ7KM4PQR".slice(0, length || MIN_CODE))}
        onChange={(e) => setValue(groupCode(normalizeInput(e.target.value).slice(0, MAX_CODE)))}
      />
      <span id={`${id}-hint`} className="field-hint">
        {t("codeHint")}
      </span>
      <button
        type="submit"
        className="primary big wide"
        disabled={!complete || busy || blockedUntil > now}
      >
        <SubmitLabel busy={busy} blockedUntil={blockedUntil} idle={t("open")} />
      </button>
    </form>
  );
}

function PasswordForm({
  busy,
  blockedUntil,
  onSubmit,
  onOther,
}: {
  busy: boolean;
  blockedUntil: number;
  onSubmit(password: string): void;
  onOther(): void;
}) {
  const t = useT(pickupDict);
  const [value, setValue] = useState("");
  const id = useId();
  const now = useNow(1000);
  return (
    <form
      className="pickup-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (value && !busy) onSubmit(value);
      }}
    >
      <p>{t("passwordLead")}</p>
      <label htmlFor={id} className="big-label">
        {t("password")}
      </label>
      <input
        id={id}
        className="big-input"
        type="password"
        autoComplete="off"
        enterKeyHint="go"
        value={value}
        onChange={(e) => setValue(e.target.value)}
      />
      <button
        type="submit"
        className="primary big wide"
        disabled={!value || busy || blockedUntil > now}
      >
        <SubmitLabel busy={busy} blockedUntil={blockedUntil} idle={t("unlock")} />
      </button>
      <button type="button" className="linkish other-code" onClick={onOther}>
        {t("otherCode")}
      </button>
    </form>
  );
}

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
      const body = pass ? { code: plain, password: pass } : { code: plain };
      const answer = await api<PickupView>("POST", "/pickup/resolve", body);
      code.current = plain;
      password.current = pass;
      grantedAt.current = Date.now();
      setView(answer);
      setPhase("files");
      setProblem(null);
      setEnded(false);
      return true;
    } catch (err) {
      // Whatever went wrong, a first attempt from a link ends on the form, never on "opening".
      setPhase((p) => (p === "checking" ? "code" : p));
      if (!(err instanceof ApiError)) {
        setProblem({ error: err });
        return false;
      }
      if (err.status === 401 && err.body.password_required) {
        code.current = plain;
        password.current = "";
        setPhase("password");
        setProblem(pass ? { key: "wrongPassword" } : null);
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
        setProblem(key ? { key } : { error: err });
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
      setView(await api<PickupView>("GET", "/pickup"));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        if (code.current) await resolve(code.current, password.current, true);
        else {
          setPhase("code");
          setView(null);
          setProblem({ key: "sessionLapsed" });
        }
      } else if (err instanceof ApiError && (err.status === 410 || err.status === 404)) {
        setEnded(true);
        setProblem({ key: "gone" });
      } else setProblem({ error: err });
    }
  }, [resolve]);

  useEffect(() => {
    const plain = normalizeInput(rest);
    if (plain) {
      void resolve(plain, "");
      return;
    }
    // A reload within the 10 minutes picks up where it was.
    let alive = true;
    api<PickupView>("GET", "/pickup").then(
      (answer) => {
        if (!alive) return;
        grantedAt.current = Date.now();
        setView(answer);
        setPhase("files");
      },
      () => alive && setPhase((p) => (p === "checking" ? "code" : p)),
    );
    return () => {
      alive = false;
    };
  }, [rest, resolve]);

  useEffect(() => () => timers.current.forEach(clearTimeout), []);

  const afterDownload = () => {
    setNotice("started");
    // The download is counted when it starts: show the new count shortly after.
    timers.current.push(setTimeout(() => void refresh(), 1000));
    timers.current.push(setTimeout(() => void refresh(), 4000));
  };

  const onDownload = (e: MouseEvent<HTMLAnchorElement>) => {
    const link = e.currentTarget;
    if (Date.now() - grantedAt.current < GRANT_MS || !code.current) {
      afterDownload();
      return;
    }
    // The authorisation is about to lapse: renew it first, then start the same download.
    e.preventDefault();
    void resolve(code.current, password.current, true).then((ok) => {
      if (ok) {
        afterDownload();
        link.click();
      }
    });
  };

  const other = () => {
    code.current = "";
    password.current = "";
    setEnded(false);
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
          <FilesView view={view} ended={ended} onDownload={onDownload} onOther={other} />
        </>
      ) : null}
    </div>
  );
}
