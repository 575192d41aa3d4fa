import { useId, useRef, useState, type DragEvent } from "react";
import { formatBytes } from "../../shared/format.js";
import { useT } from "../i18n.js";
import type { PublicPolicy } from "../types.js";
import { useErrorText } from "../ui/errors.js";
import { Notice } from "../ui/notice.js";
import { sendDict, type SendKey } from "./i18n.js";
import { filesOfDrop, useSend, type Options, type Picked } from "./store.js";

export interface Problems {
  files: string[];
  days?: string;
  downloads?: string;
  password?: string;
}

function isWhole(n: number, max: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= max;
}

/** Checks the selection and options against the public policy before anything is sent. */
export function checkSend(
  picked: Picked[],
  options: Options,
  policy: PublicPolicy,
  t: (key: SendKey, vars?: Record<string, string | number>) => string,
): Problems {
  const files: string[] = [];
  if (picked.length > policy.max_files) files.push(t("tooMany", { max: policy.max_files }));
  for (const p of picked) {
    if (p.file.size > policy.max_file_bytes)
      files.push(t("fileTooBig", { name: p.name, max: formatBytes(policy.max_file_bytes) }));
  }
  const total = picked.reduce((sum, p) => sum + p.file.size, 0);
  if (total > policy.max_parcel_bytes)
    files.push(
      t("totalTooBig", { size: formatBytes(total), max: formatBytes(policy.max_parcel_bytes) }),
    );
  const out: Problems = { files };
  if (!isWhole(options.days, policy.max_days)) out.days = t("badDays", { max: policy.max_days });
  if (!isWhole(options.downloads, policy.max_downloads))
    out.downloads = t("badDownloads", { max: policy.max_downloads });
  if (policy.require_password && options.password === "") out.password = t("needPassword");
  return out;
}

function hasFiles(e: DragEvent | globalThis.DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes("Files");
}

function DropZone({
  onFiles,
  compact,
}: {
  onFiles: (files: File[], folders?: number) => void;
  compact: boolean;
}) {
  const t = useT(sendDict);
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const depth = useRef(0);
  return (
    <div
      className={`dropzone${over ? " dropzone-over" : ""}${compact ? " dropzone-compact" : ""}`}
      data-testid="dropzone"
      onDragEnter={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        depth.current++;
        setOver(true);
      }}
      onDragOver={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = "copy";
      }}
      onDragLeave={() => {
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setOver(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        e.stopPropagation();
        depth.current = 0;
        setOver(false);
        const { files, folders } = filesOfDrop(e.dataTransfer);
        onFiles(files, folders);
      }}
    >
      {compact ? null : (
        <>
          <div className="dropzone-icon" aria-hidden="true">
            ⇪
          </div>
          <p className="dropzone-title">{t("dropTitle")}</p>
          <p className="muted dropzone-or">{t("dropOr")}</p>
        </>
      )}
      <button
        type="button"
        className={compact ? "" : "primary big"}
        onClick={() => input.current?.click()}
      >
        {compact ? `+ ${t("addMore")}` : t("choose")}
      </button>
      <input
        ref={input}
        type="file"
        multiple
        className="sr-only"
        tabIndex={-1}
        aria-hidden="true"
        onChange={(e) => {
          onFiles(Array.from(e.target.files ?? []));
          e.target.value = "";
        }}
      />
    </div>
  );
}

function FileList({
  picked,
  problems,
  maxFile,
}: {
  picked: Picked[];
  problems: string[];
  maxFile: number;
}) {
  const t = useT(sendDict);
  const { removeFile, clearFiles } = useSend();
  const total = picked.reduce((sum, p) => sum + p.file.size, 0);
  return (
    <div className="picked">
      <div className="picked-head">
        <strong>
          {picked.length === 1
            ? t("selectedOne", { size: formatBytes(total) })
            : t("selected", { n: picked.length, size: formatBytes(total) })}
        </strong>
        <button type="button" className="small" onClick={clearFiles}>
          {t("removeAll")}
        </button>
      </div>
      <ul className="file-list" aria-label={t("files")}>
        {picked.map((p) => (
          <li key={p.key} className={`file-row${p.file.size > maxFile ? " file-row-bad" : ""}`}>
            <span className="file-name ellipsis" title={p.name}>
              {p.name}
            </span>
            <span className="file-size">{formatBytes(p.file.size)}</span>
            <button
              type="button"
              className="icon-button"
              aria-label={t("remove", { name: p.name })}
              title={t("remove", { name: p.name })}
              onClick={() => removeFile(p.key)}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      {problems.map((text) => (
        <Notice key={text} kind="error">
          {text}
        </Notice>
      ))}
    </div>
  );
}

function NumberField(props: {
  label: string;
  hint: string;
  error?: string;
  value: number;
  max: number;
  onChange(n: number): void;
}) {
  const id = useId();
  return (
    <div className={`field${props.error ? " field-bad" : ""}`}>
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={1}
        max={props.max}
        step={1}
        value={Number.isFinite(props.value) ? props.value : ""}
        aria-invalid={Boolean(props.error)}
        aria-describedby={`${id}-note`}
        onChange={(e) => props.onChange(e.target.value === "" ? NaN : Number(e.target.value))}
      />
      <span id={`${id}-note`} className={props.error ? "field-error" : "field-hint"}>
        {props.error ?? props.hint}
      </span>
    </div>
  );
}

function OptionsForm({
  options,
  policy,
  problems,
}: {
  options: Options;
  policy: PublicPolicy;
  problems: Problems;
}) {
  const t = useT(sendDict);
  const setOptions = useSend((s) => s.setOptions);
  const [show, setShow] = useState(false);
  const pwId = useId();
  const renewId = useId();
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
        onChange={(downloads) => setOptions({ downloads })}
      />
      <div className={`field field-wide${problems.password ? " field-bad" : ""}`}>
        <label htmlFor={pwId}>
          {policy.require_password ? t("password") : t("passwordOptional")}
        </label>
        <div className="password-row">
          <input
            id={pwId}
            type={show ? "text" : "password"}
            autoComplete="new-password"
            value={options.password}
            required={policy.require_password}
            aria-invalid={Boolean(problems.password)}
            aria-describedby={`${pwId}-note`}
            onChange={(e) => setOptions({ password: e.target.value })}
          />
          <label className="inline-check">
            <input type="checkbox" checked={show} onChange={(e) => setShow(e.target.checked)} />
            {t("showPassword")}
          </label>
        </div>
        <span id={`${pwId}-note`} className={problems.password ? "field-error" : "field-hint"}>
          {problems.password ??
            (policy.require_password ? t("passwordRequired") : t("passwordHint"))}
        </span>
      </div>
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
          {t("renewHint", { days: policy.renew_days, cap: policy.renew_cap_days })}
        </span>
      </div>
    </fieldset>
  );
}

/** Picking files and options; the submit creates the upload session. */
export function Compose({ policy, options }: { policy: PublicPolicy; options: Options }) {
  const t = useT(sendDict);
  const describe = useErrorText();
  const { picked, phase, error, skippedFolders, addFiles, start } = useSend();
  const problems = checkSend(picked, options, policy, t);
  const blocked =
    picked.length === 0 ||
    problems.files.length > 0 ||
    Boolean(problems.days || problems.downloads || problems.password);
  const busy = phase === "creating";
  return (
    <form
      className="send"
      onSubmit={(e) => {
        e.preventDefault();
        if (!blocked && !busy) void start();
      }}
    >
      <DropZone onFiles={addFiles} compact={picked.length > 0} />
      {skippedFolders > 0 ? (
        <Notice kind="warn">{t("foldersSkipped", { n: skippedFolders })}</Notice>
      ) : null}
      {picked.length === 0 ? (
        <p className="muted center small">
          {t("dropHint", {
            files: policy.max_files,
            file: formatBytes(policy.max_file_bytes),
            total: formatBytes(policy.max_parcel_bytes),
          })}
        </p>
      ) : (
        <FileList picked={picked} problems={problems.files} maxFile={policy.max_file_bytes} />
      )}
      <OptionsForm options={options} policy={policy} problems={problems} />
      <Notice kind="error">{error ? describe(error) : null}</Notice>
      <div className="send-actions">
        <button type="submit" className="primary big" disabled={blocked || busy}>
          {busy ? t("creating") : picked.length > 1 ? t("sendN", { n: picked.length }) : t("send")}
        </button>
      </div>
    </form>
  );
}
