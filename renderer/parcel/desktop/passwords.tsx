import { useId, useState, type FormEvent } from "react";
import type { DesktopPasswordResult, OperatorService } from "../../../preload/contract.js";
import { useT, type Translate } from "../i18n.js";
import { CopyButton } from "../ui/copy-button.js";
import { Notice } from "../ui/notice.js";
import { desktopDict, type DesktopKey } from "./i18n.js";
import { desktopApi, useDesktopLoad } from "./use-desktop.js";

/** The services' rule, counted as they count it (UTF-8 bytes). */
function ruleProblem(password: string): DesktopKey | null {
  const bytes = new TextEncoder().encode(password).length;
  if (bytes < 12) return "tooShort";
  if (bytes > 72) return "tooLong";
  return null;
}

/** A refused change in the reader's words, by the desktop's code and the service's values. */
export function refusalText(
  result: Exclude<DesktopPasswordResult, { ok: true }>,
  t: Translate<DesktopKey>,
): string {
  const params = result.params ?? {};
  switch (result.code) {
    case "operator.password_wrong":
      return t("pw_password_wrong");
    case "operator.password_rule":
      return result.serviceCode?.endsWith("_long")
        ? t("pw_rule_long", { max: Number(params.max ?? 72) })
        : t("pw_rule_short", { min: Number(params.min ?? 12) });
    case "operator.not_running":
      return t("pw_not_running");
    case "operator.keychain":
      return t("pw_keychain");
    case "operator.service_unreachable":
      return t("pw_unreachable");
    case "operator.rate_limited":
      return t("pw_rate_limited");
    default:
      return t("pw_failed");
  }
}

function Secret({ value, onHide }: { value: string; onHide(): void }) {
  const t = useT(desktopDict);
  return (
    <div className="desktop-secret">
      <code className="mono" translate="no" data-testid="revealed-password">
        {value}
      </code>
      <CopyButton text={value} />
      <button type="button" onClick={onHide}>
        {t("hide")}
      </button>
    </div>
  );
}

type Shown = { kind: "hidden" } | { kind: "value"; value: string } | { kind: "none" };

/** One password box with its label, its refusal (once a save was tried) and a standing hint. */
function PasswordRow({
  id,
  label,
  autoComplete,
  value,
  onChange,
  error,
  hint,
}: {
  id: string;
  label: string;
  autoComplete: "current-password" | "new-password";
  value: string;
  onChange(value: string): void;
  error: string | null;
  hint?: string;
}) {
  return (
    <div className={`field${error ? " field-bad" : ""}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="password"
        autoComplete={autoComplete}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      {error ? <span className="field-error">{error}</span> : null}
      {hint ? <span className="field-hint">{hint}</span> : null}
    </div>
  );
}

/**
 * The change form's state: the three values, whether a save was tried (refusals show from
 * then on), and `submit`, which reads the kept password when the app knows it.
 */
function usePasswordChange(
  service: OperatorService,
  knowsCurrent: boolean,
  onDone: (m: string) => void,
) {
  const t = useT(desktopDict);
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeat, setRepeat] = useState("");
  const [tried, setTried] = useState(false);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    setError("");
    if (ruleProblem(next) || repeat !== next || (!knowsCurrent && !current)) return;
    setBusy(true);
    try {
      const api = desktopApi().operator;
      const now = knowsCurrent ? ((await api.revealPassword(service)) ?? current) : current;
      const result = await api.changePassword(service, now, next);
      if (result.ok) onDone(t("changed"));
      else setError(refusalText(result, t));
    } catch {
      setError(t("pw_failed"));
    } finally {
      setBusy(false);
    }
  };
  const rule = tried ? ruleProblem(next) : null;
  const refusals = {
    current: tried && !knowsCurrent && !current ? t("missingCurrent") : null,
    next: rule ? t(rule) : null,
    repeat: tried && repeat !== next ? t("mismatch") : null,
  };
  const values = { current, next, repeat, setCurrent, setNext, setRepeat };
  return { values, refusals, error, busy, submit };
}

function ChangeForm({
  service,
  knowsCurrent,
  onDone,
}: {
  service: OperatorService;
  /** The app keeps the current password: the form does not ask for it. */
  knowsCurrent: boolean;
  onDone(message: string): void;
}) {
  const t = useT(desktopDict);
  const id = useId();
  const {
    values: v,
    refusals,
    error,
    busy,
    submit,
  } = usePasswordChange(service, knowsCurrent, onDone);
  return (
    <form className="desktop-change" onSubmit={(e) => void submit(e)} noValidate>
      {knowsCurrent ? null : (
        <PasswordRow
          id={`${id}-current`}
          label={t("currentPassword")}
          autoComplete="current-password"
          value={v.current}
          onChange={v.setCurrent}
          error={refusals.current}
        />
      )}
      <PasswordRow
        id={`${id}-new`}
        label={t("newPassword")}
        autoComplete="new-password"
        value={v.next}
        onChange={v.setNext}
        error={refusals.next}
        hint={t("passwordRule")}
      />
      <PasswordRow
        id={`${id}-repeat`}
        label={t("repeatPassword")}
        autoComplete="new-password"
        value={v.repeat}
        onChange={v.setRepeat}
        error={refusals.repeat}
      />
      <Notice kind="error">{error}</Notice>
      <button type="submit" className="primary" disabled={busy}>
        {t("changeButton")}
      </button>
    </form>
  );
}

/** One console's password: hidden until asked for, with copy, and a change form. */
function PasswordCard({ service }: { service: OperatorService }) {
  const t = useT(desktopDict);
  const [shown, setShown] = useState<Shown>({ kind: "hidden" });
  const [changing, setChanging] = useState<{ knowsCurrent: boolean } | null>(null);
  const [error, setError] = useState("");
  const [done, setDone] = useState("");
  const title = service === "parcel" ? t("parcelAdmin") : t("proxyAdmin");

  const read = async (): Promise<string | null | undefined> => {
    setError("");
    try {
      return await desktopApi().operator.revealPassword(service);
    } catch {
      setError(t("revealFailed"));
      return undefined;
    }
  };
  const reveal = async () => {
    const value = await read();
    if (value === undefined) return;
    setShown(value === null ? { kind: "none" } : { kind: "value", value });
  };
  const openChange = async () => {
    setDone("");
    // Without the kept password (or a keychain) the form asks for the current one.
    const value = await read();
    setChanging({ knowsCurrent: typeof value === "string" });
  };

  return (
    <section className="desktop-password" aria-label={title} data-service={service}>
      <h3>{title}</h3>
      {shown.kind === "value" ? (
        <Secret value={shown.value} onHide={() => setShown({ kind: "hidden" })} />
      ) : null}
      {shown.kind === "none" ? <p className="muted">{t("notKept")}</p> : null}
      <div className="button-row">
        {shown.kind === "hidden" ? (
          <button type="button" onClick={() => void reveal()}>
            {t("reveal")}
          </button>
        ) : null}
        {changing ? (
          <button type="button" onClick={() => setChanging(null)}>
            {t("changeCancel")}
          </button>
        ) : (
          <button type="button" onClick={() => void openChange()}>
            {t("changeOpen")}
          </button>
        )}
      </div>
      <Notice kind="error">{error}</Notice>
      <Notice kind="ok">{done}</Notice>
      {changing ? (
        <ChangeForm
          service={service}
          knowsCurrent={changing.knowsCurrent}
          onDone={(message) => {
            setChanging(null);
            setShown({ kind: "hidden" });
            setDone(message);
          }}
        />
      ) : null}
    </section>
  );
}

/**
 * While the proxy console has no administrator (the app could not set it up, e.g. without a
 * keychain): its one-time setup token, for the console's own setup page. Only this app page
 * may read it; the console's page, which the LAN loads too, never gets it.
 */
function SetupToken() {
  const t = useT(desktopDict);
  const token = useDesktopLoad((api) => api.proxy.setupToken(), 10_000);
  if (!token.data) return null;
  return (
    <section
      className="desktop-password"
      aria-label={t("setupTokenTitle")}
      data-testid="setup-token"
    >
      <h3>{t("setupTokenTitle")}</h3>
      <p className="muted">{t("setupTokenLead")}</p>
      <div className="desktop-secret">
        <code className="mono" translate="no">
          {token.data}
        </code>
        <CopyButton text={token.data} />
      </div>
    </section>
  );
}

/** "Administrator passwords": both consoles' passwords the app keeps. */
export function Passwords() {
  const t = useT(desktopDict);
  return (
    <section className="card desktop-section" aria-labelledby="desktop-passwords">
      <h2 id="desktop-passwords">{t("passwordsTitle")}</h2>
      <p className="muted">{t("passwordsLead")}</p>
      <div className="desktop-passwords">
        <PasswordCard service="parcel" />
        <PasswordCard service="proxy" />
        <SetupToken />
      </div>
    </section>
  );
}
