import { useState, type FormEvent } from "react";
import { ApiError, api } from "../api.js";
import { useLoginWait } from "./login-wait.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { Alert, Field, sayError } from "../parts/ui.js";
import { useSaid } from "../parts/use-said.js";

/** Byte length as the server counts it (UTF-8). */
export function passwordProblem(password: string, t: ReturnType<typeof useT>): string {
  const bytes = new TextEncoder().encode(password).length;
  if (bytes < 12) return t("auth.tooShort");
  if (bytes > 72) return t("auth.tooLong");
  return "";
}

/** A password input inside a labelled field. */
function PasswordField({
  label,
  value,
  onChange,
  autoComplete,
  error,
  hint,
  autoFocus,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  autoComplete: "current-password" | "new-password";
  error?: string;
  hint?: string;
  autoFocus?: boolean;
}) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(p) => (
        <input
          {...p}
          type="password"
          value={value}
          onChange={(e) => onChange(e.target.value)}
          autoComplete={autoComplete}
          autoFocus={autoFocus}
        />
      )}
    </Field>
  );
}

/** What a form that sets a new password keeps: the password, its confirmation, and whether
 * the form was tried (problems are shown only then). */
function useNewPassword() {
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [tried, setTried] = useState(false);
  return {
    password,
    confirm,
    setPassword,
    setConfirm,
    tried,
    setTried,
    /** Whether the new password may be sent (long enough, short enough, confirmed). */
    acceptable: (t: ReturnType<typeof useT>) =>
      !passwordProblem(password, t) && confirm === password,
    clear() {
      setPassword("");
      setConfirm("");
      setTried(false);
    },
  };
}

/** A form's one request at a time: busy while it runs, its failure said in words (or handed
 * to `otherwise` first, which answers whether it said the failure itself). */
function useSubmit() {
  const [error, setError] = useSaid();
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<void>, otherwise?: (err: unknown) => boolean) => {
    setBusy(true);
    setError("");
    try {
      await work();
    } catch (err) {
      if (!otherwise?.(err)) setError(sayError(err));
    } finally {
      setBusy(false);
    }
  };
  return { error, setError, busy, run };
}

/** A new password and its confirmation; problems are shown once the form was tried. */
function NewPasswordFields({
  password,
  confirm,
  setPassword,
  setConfirm,
  tried,
}: Pick<
  ReturnType<typeof useNewPassword>,
  "password" | "confirm" | "setPassword" | "setConfirm" | "tried"
>) {
  const t = useT();
  return (
    <>
      <PasswordField
        label={t("auth.newPassword")}
        value={password}
        onChange={setPassword}
        autoComplete="new-password"
        error={tried ? passwordProblem(password, t) : ""}
        hint={t("auth.passwordRule")}
      />
      <PasswordField
        label={t("auth.confirm")}
        value={confirm}
        onChange={setConfirm}
        autoComplete="new-password"
        error={tried && confirm !== password ? t("auth.mismatch") : ""}
      />
    </>
  );
}

function Shell({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="auth" id="main">
      <div className="auth-box">
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

export function SetupScreen() {
  const t = useT();
  const signedIn = useApp((s) => s.signedIn);
  const [token, setToken] = useState("");
  const fresh = useNewPassword();
  const { error, busy, run } = useSubmit();

  const tokenError = fresh.tried && !token.trim() ? t("auth.tokenMissing") : "";

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    fresh.setTried(true);
    if (!token.trim() || !fresh.acceptable(t)) return;
    await run(async () => {
      const body = { token: token.trim(), password: fresh.password };
      signedIn((await api("POST /auth/setup", { body })).csrf);
    });
  };

  return (
    <Shell title={t("auth.setupTitle")}>
      <p>{t("auth.setupIntro")}</p>
      <form onSubmit={submit} noValidate>
        {/* The desktop app never hands this page the token (the LAN loads this page too):
            its own Desktop screen shows it. */}
        <Field
          label={t("auth.token")}
          error={tokenError}
          hint={t(window.gatehouse ? "auth.tokenFromDesktop" : "auth.tokenHint")}
        >
          {(p) => (
            <input
              {...p}
              value={token}
              onChange={(e) => setToken(e.target.value)}
              autoComplete="off"
              spellCheck={false}
            />
          )}
        </Field>
        <NewPasswordFields {...fresh} />
        <Alert text={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t("common.working") : t("auth.setupButton")}
        </button>
      </form>
    </Shell>
  );
}

/**
 * Desktop app only: whether to offer keeping `password` in the keychain after a sign-in by
 * hand (the proxy was set up elsewhere, or its password changed there). Not when the app
 * keeps this very password already, nor when it cannot say (no keychain).
 */
async function offerToRemember(password: string): Promise<boolean> {
  const desktop = window.gatehouse?.operator;
  if (!desktop) return false;
  try {
    // A yes or no from the app: this page never sees the kept password.
    return !(await desktop.keepsPassword("proxy", password));
  } catch {
    return false;
  }
}

/**
 * After a sign-in by hand in the desktop app: keep the password so the app signs in by
 * itself next time. Main signs in again with it and gives the window that session, so the
 * page reads its CSRF token anew.
 */
function RememberOffer({ password, csrf }: { password: string; csrf: string }) {
  const t = useT();
  const signedIn = useApp((s) => s.signedIn);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const keep = async () => {
    setBusy(true);
    setFailed(false);
    try {
      const result = await window.gatehouse?.operator.rememberPassword("proxy", password);
      if (!result?.ok) throw new Error(result?.code ?? "not in the desktop app");
      const status = await api("GET /auth/status");
      signedIn(status.csrf);
    } catch {
      setFailed(true);
      setBusy(false);
    }
  };
  return (
    <div className="remember-offer" data-testid="remember-offer">
      <p>{t("auth.rememberAsk")}</p>
      <Alert text={failed ? t("auth.rememberFailed") : ""} />
      <div className="form-actions">
        <button type="button" className="primary" disabled={busy} onClick={() => void keep()}>
          {busy ? t("common.working") : t("auth.rememberYes")}
        </button>
        <button type="button" disabled={busy} onClick={() => signedIn(csrf)}>
          {t("auth.rememberNo")}
        </button>
      </div>
    </div>
  );
}

export function LoginScreen() {
  const t = useT();
  const { signedIn, notice, lang } = useApp();
  const [password, setPassword] = useState("");
  const { error, setError, busy, run } = useSubmit();
  const [offer, setOffer] = useState<{ password: string; csrf: string } | null>(null);
  const wait = useLoginWait();
  const waiting = wait.waiting;

  // Too many tries: the wait is said (and counted down) instead of an error.
  const tooMany = (err: unknown) => {
    if (!(err instanceof ApiError && err.status === 429 && err.retryAfter)) return false;
    wait.start(err.retryAfter);
    return true;
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (waiting) return;
    if (!password) {
      setError((tr) => tr("auth.passwordMissing"));
      return;
    }
    await run(async () => {
      const res = await api("POST /auth/login", { body: { password } });
      if (await offerToRemember(password)) setOffer({ password, csrf: res.csrf });
      else signedIn(res.csrf);
    }, tooMany);
  };

  if (offer)
    return (
      <Shell title={t("auth.loginTitle")}>
        <RememberOffer password={offer.password} csrf={offer.csrf} />
      </Shell>
    );
  return (
    <Shell title={t("auth.loginTitle")}>
      {notice === "expired" ? <Alert kind="info" text={t("auth.expired")} /> : null}
      {notice === "loggedOut" ? <Alert kind="info" text={t("auth.loggedOut")} /> : null}
      <form onSubmit={submit} noValidate>
        <PasswordField
          label={t("auth.password")}
          value={password}
          onChange={setPassword}
          autoComplete="current-password"
          autoFocus
        />
        <Alert text={error} />
        <Alert text={wait.said(t, lang)} />
        <button type="submit" className="primary" disabled={busy || waiting}>
          {busy ? t("common.working") : waiting ? wait.button(t, lang) : t("auth.loginButton")}
        </button>
      </form>
    </Shell>
  );
}

export function PasswordForm() {
  const t = useT();
  const signedIn = useApp((s) => s.signedIn);
  const [current, setCurrent] = useState("");
  const fresh = useNewPassword();
  const { error, busy, run } = useSubmit();
  const [done, setDone] = useState("");

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    fresh.setTried(true);
    setDone("");
    if (!current || !fresh.acceptable(t)) return;
    await run(async () => {
      const body = { currentPassword: current, password: fresh.password };
      signedIn((await api("PUT /auth/password", { body })).csrf);
      setCurrent("");
      fresh.clear();
      setDone(t("auth.passwordChanged"));
    });
  };

  return (
    <form onSubmit={submit} noValidate className="form-grid">
      <PasswordField
        label={t("auth.currentPassword")}
        value={current}
        onChange={setCurrent}
        autoComplete="current-password"
        error={fresh.tried && !current ? t("auth.passwordMissing") : ""}
      />
      <NewPasswordFields {...fresh} />
      <div className="form-actions">
        <button type="submit" disabled={busy}>
          {busy ? t("common.working") : t("auth.changeButton")}
        </button>
      </div>
      <Alert text={error} />
      <Alert kind="ok" text={done} />
    </form>
  );
}
