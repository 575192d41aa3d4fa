import { useEffect, useState, type FormEvent } from "react";
import { api } from "./api.js";
import { useT } from "./i18n.js";
import { useApp } from "./store.js";
import { Alert, errorText, Field } from "./ui.js";

/** Byte length as the server counts it (UTF-8). */
export function passwordProblem(password: string, t: ReturnType<typeof useT>): string {
  const bytes = new TextEncoder().encode(password).length;
  if (bytes < 12) return t("auth.tooShort");
  if (bytes > 72) return t("auth.tooLong");
  return "";
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
  const [desktopToken, setDesktopToken] = useState(false);
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [tried, setTried] = useState(false);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    // The desktop app reads the token file itself, so its operator never types it.
    const desktop = window.gatehouse?.proxy;
    if (!desktop) return;
    desktop
      .setupToken()
      .then((value) => {
        if (value) {
          setToken(value);
          setDesktopToken(true);
        }
      })
      .catch(() => setDesktopToken(false));
  }, []);

  const tokenError = tried && !token.trim() ? t("auth.tokenMissing") : "";
  const passwordError = tried ? passwordProblem(password, t) : "";
  const confirmError = tried && confirm !== password ? t("auth.mismatch") : "";

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (!token.trim() || passwordProblem(password, t) || confirm !== password) return;
    setBusy(true);
    setError("");
    try {
      const res = await api<{ csrf: string }>("POST", "/auth/setup", {
        token: token.trim(),
        password,
      });
      signedIn(res.csrf);
    } catch (err) {
      setError(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Shell title={t("auth.setupTitle")}>
      <p>{t("auth.setupIntro")}</p>
      <form onSubmit={submit} noValidate>
        {desktopToken ? (
          <p className="muted">{t("auth.tokenFromDesktop")}</p>
        ) : (
          <Field label={t("auth.token")} error={tokenError} hint={t("auth.tokenHint")}>
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
        )}
        <Field label={t("auth.newPassword")} error={passwordError} hint={t("auth.passwordRule")}>
          {(p) => (
            <input
              {...p}
              type="password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              autoComplete="new-password"
            />
          )}
        </Field>
        <Field label={t("auth.confirm")} error={confirmError}>
          {(p) => (
            <input
              {...p}
              type="password"
              value={confirm}
              onChange={(e) => setConfirm(e.target.value)}
              autoComplete="new-password"
            />
          )}
        </Field>
        <Alert text={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t("common.working") : t("auth.setupButton")}
        </button>
      </form>
    </Shell>
  );
}

export function LoginScreen() {
  const t = useT();
  const { signedIn, notice } = useApp();
  const [password, setPassword] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!password) {
      setError(t("auth.passwordMissing"));
      return;
    }
    setBusy(true);
    setError("");
    try {
      const res = await api<{ csrf: string }>("POST", "/auth/login", { password });
      signedIn(res.csrf);
    } catch (err) {
      setError(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Shell title={t("auth.loginTitle")}>
      {notice === "expired" ? <Alert kind="info" text={t("auth.expired")} /> : null}
      {notice === "loggedOut" ? <Alert kind="info" text={t("auth.loggedOut")} /> : null}
      <form onSubmit={submit} noValidate>
        <Field label={t("auth.password")}>
          {(p) => (
            <input
              {...p}
              type="password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              autoComplete="current-password"
              autoFocus
            />
          )}
        </Field>
        <Alert text={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t("common.working") : t("auth.loginButton")}
        </button>
      </form>
    </Shell>
  );
}

export function PasswordForm() {
  const t = useT();
  const signedIn = useApp((s) => s.signedIn);
  const [current, setCurrent] = useState("");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [tried, setTried] = useState(false);
  const [error, setError] = useState("");
  const [done, setDone] = useState("");
  const [busy, setBusy] = useState(false);
  const passwordError = tried ? passwordProblem(password, t) : "";
  const confirmError = tried && confirm !== password ? t("auth.mismatch") : "";

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    setDone("");
    if (!current || passwordProblem(password, t) || confirm !== password) return;
    setBusy(true);
    setError("");
    try {
      const res = await api<{ csrf: string }>("PUT", "/auth/password", {
        currentPassword: current,
        password,
      });
      signedIn(res.csrf);
      setCurrent("");
      setPassword("");
      setConfirm("");
      setTried(false);
      setDone(t("auth.passwordChanged"));
    } catch (err) {
      setError(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate className="form-grid">
      <Field
        label={t("auth.currentPassword")}
        error={tried && !current ? t("auth.passwordMissing") : ""}
      >
        {(p) => (
          <input
            {...p}
            type="password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            autoComplete="current-password"
          />
        )}
      </Field>
      <Field label={t("auth.newPassword")} error={passwordError} hint={t("auth.passwordRule")}>
        {(p) => (
          <input
            {...p}
            type="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            autoComplete="new-password"
          />
        )}
      </Field>
      <Field label={t("auth.confirm")} error={confirmError}>
        {(p) => (
          <input
            {...p}
            type="password"
            value={confirm}
            onChange={(e) => setConfirm(e.target.value)}
            autoComplete="new-password"
          />
        )}
      </Field>
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
