import { useEffect, useRef, useState, type FormEvent } from "react";
import type { LoginInput } from "../../../server/contract/parcel-admin.js";
import { ApiError } from "../api.js";
import { parcelApi } from "../api-full.js";
import { useA } from "./i18n.js";
import { useSession } from "./session.js";
import { Alert, Field, useErrorText } from "./ui.js";

/** `POST /admin/login`; a 429 says in words how long to wait (Retry-After). */
export function LoginForm() {
  const t = useA();
  const describe = useErrorText();
  const { note, lastUser, signedIn } = useSession();
  const [username, setUsername] = useState(lastUser);
  const [password, setPassword] = useState("");
  const [tried, setTried] = useState(false);
  // The failure itself, worded when shown: a change of language rewords it.
  const [failure, setFailure] = useState<{ err: unknown } | null>(null);
  const [busy, setBusy] = useState(false);
  const passwordRef = useRef<HTMLInputElement>(null);
  useEffect(() => passwordRef.current?.focus(), []);

  const error = !failure
    ? ""
    : failure.err instanceof ApiError && failure.err.status === 401
      ? t("login.wrong")
      : describe(failure.err);
  const userError = tried && !username.trim() ? t("login.userMissing") : "";
  const passwordError = tried && !password ? t("login.passwordMissing") : "";

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (!username.trim() || !password) return;
    setBusy(true);
    setFailure(null);
    try {
      const body: LoginInput = { username: username.trim(), password };
      const res = await parcelApi("POST /admin/login", { body });
      signedIn(res.username);
    } catch (err) {
      setFailure({ err });
      // The typed password stays, selected: typing replaces it, and a wrong username can be
      // corrected without typing the password again. Nothing asks for a password not missing.
      passwordRef.current?.focus();
      passwordRef.current?.select();
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="adm-login">
      <form
        className="adm-login-box"
        onSubmit={submit}
        noValidate
        aria-labelledby="adm-login-title"
      >
        <h1 id="adm-login-title">{t("login.title")}</h1>
        {note ? (
          <Alert kind="info" text={t(note === "expired" ? "login.expired" : "login.signedOut")} />
        ) : null}
        <Field label={t("login.username")} error={userError}>
          {(p) => (
            <input
              {...p}
              value={username}
              onChange={(e) => setUsername(e.target.value)}
              autoComplete="username"
              autoCapitalize="none"
              spellCheck={false}
            />
          )}
        </Field>
        <Field label={t("login.password")} error={passwordError}>
          {(p) => (
            <input
              {...p}
              ref={passwordRef}
              type="password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              autoComplete="current-password"
            />
          )}
        </Field>
        <Alert text={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? t("login.busy") : t("login.submit")}
        </button>
      </form>
    </div>
  );
}
