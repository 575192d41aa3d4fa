import { useId, useState } from "react";
import { Field } from "../../shared/field.js";
import { useT } from "../i18n.js";
import type { PublicPolicy } from "../../../server/contract/parcel-policy.js";
import type { Problems } from "./check-send.js";
import { sendDict } from "./i18n.js";
import { useSend, type Options } from "./store.js";

function NumberField(props: {
  label: string;
  hint: string;
  error?: string;
  value: number;
  max: number;
  /** Another element that explains the number (read after the hint). */
  describedBy?: string;
  onChange(n: number): void;
}) {
  return (
    <Field
      label={props.label}
      hint={props.hint}
      error={props.error}
      describedBy={props.describedBy}
    >
      {(control) => (
        <input
          {...control}
          type="number"
          inputMode="numeric"
          min={1}
          max={props.max}
          step={1}
          value={Number.isFinite(props.value) ? props.value : ""}
          onChange={(e) => props.onChange(e.target.value === "" ? NaN : Number(e.target.value))}
        />
      )}
    </Field>
  );
}

/**
 * Why "Downloads allowed" is not "people": every file downloaded counts, the ZIP of all files
 * counts once. With several files the sum is worked out and the ZIP suggested.
 */
function DownloadsNote({
  id,
  files,
  downloads,
  max,
}: {
  id: string;
  files: number;
  downloads: number;
  /** The most downloads the gateway allows: a count past it is refused, not worked out. */
  max: number;
}) {
  const t = useT(sendDict);
  const n = Number.isInteger(downloads) && downloads > 0 && downloads <= max ? downloads : 0;
  let sum = "";
  if (files > 1 && n > 0) {
    const people = Math.floor(n / files);
    sum =
      people === 0
        ? t("downloadsFewer", { n, files })
        : t("downloadsPerFile", { n, files, people });
  }
  return (
    <p id={id} className="field-hint field-wide downloads-note" data-testid="downloads-note">
      {t("downloadsCount")}
      {sum ? (
        <>
          {" "}
          <strong>{sum}</strong>
        </>
      ) : null}
    </p>
  );
}

/** The parcel's password, shown as typed on request. */
function PasswordField({
  options,
  policy,
  error,
}: {
  options: Options;
  policy: PublicPolicy;
  error?: string;
}) {
  const t = useT(sendDict);
  const setOptions = useSend((s) => s.setOptions);
  const [show, setShow] = useState(false);
  return (
    <Field
      className="field-wide"
      label={policy.require_password ? t("password") : t("passwordOptional")}
      error={error}
      hint={policy.require_password ? t("passwordRequired") : t("passwordHint")}
    >
      {(control) => (
        <div className="password-row">
          <input
            {...control}
            type={show ? "text" : "password"}
            autoComplete="new-password"
            value={options.password}
            required={policy.require_password}
            onChange={(e) => setOptions({ password: e.target.value })}
          />
          <label className="inline-check">
            <input type="checkbox" checked={show} onChange={(e) => setShow(e.target.checked)} />
            {t("showPassword")}
          </label>
        </div>
      )}
    </Field>
  );
}

/** Whether a pickup renews the parcel, and by how much (or that the term leaves no room). */
function RenewField({ options, policy }: { options: Options; policy: PublicPolicy }) {
  const t = useT(sendDict);
  const setOptions = useSend((s) => s.setOptions);
  const renewId = useId();
  return (
    <div className="field field-wide">
      <label className="inline-check" htmlFor={renewId}>
        <input
          id={renewId}
          type="checkbox"
          checked={options.renew}
          aria-describedby={`${renewId}-note`}
          onChange={(e) => setOptions({ renew: e.target.checked })}
        />
        {t("renew")}
      </label>
      <span id={`${renewId}-note`} className="field-hint">
        {/* A term as long as the cap leaves renewal nothing to add: say so, not "+3 days". */}
        {Number.isInteger(options.days) && options.days >= policy.renew_cap_days
          ? t("renewNoRoom", { cap: t("daysCount", { n: policy.renew_cap_days }) })
          : t("renewHint", {
              days: t("daysCount", { n: policy.renew_days }),
              cap: t("daysCount", { n: policy.renew_cap_days }),
            })}
      </span>
    </div>
  );
}

export function OptionsForm({
  options,
  policy,
  problems,
  files,
}: {
  options: Options;
  policy: PublicPolicy;
  problems: Problems;
  /** How many files the parcel will hold. */
  files: number;
}) {
  const t = useT(sendDict);
  const setOptions = useSend((s) => s.setOptions);
  const noteId = useId();
  return (
    <fieldset className="send-options">
      <legend>{t("options")}</legend>
      <NumberField
        label={t("days")}
        hint={t("daysHint", { max: policy.max_days })}
        error={problems.days}
        value={options.days}
        max={policy.max_days}
        onChange={(days) => setOptions({ days })}
      />
      <NumberField
        label={t("downloads")}
        hint={t("downloadsHint", { max: policy.max_downloads })}
        error={problems.downloads}
        value={options.downloads}
        max={policy.max_downloads}
        describedBy={noteId}
        onChange={(downloads) => setOptions({ downloads })}
      />
      <DownloadsNote
        id={noteId}
        files={files}
        downloads={options.downloads}
        max={policy.max_downloads}
      />
      <PasswordField options={options} policy={policy} error={problems.password} />
      <RenewField options={options} policy={policy} />
    </fieldset>
  );
}
