import { useMemo, useRef, useState, type DragEvent } from "react";
import { formatBytes } from "../../shared/format.js";
import { HiddenFileInput } from "./file-input.js";
import { useT } from "../i18n.js";
import type { PublicPolicy } from "../../../server/contract/parcel-policy.js";
import { useErrorText } from "../ui/errors.js";
import { Notice } from "../ui/notice.js";
import { checkSend, sendLimits } from "./check-send.js";
import { CancelledNotice, ModeTabs, TextPanel } from "./compose-parts.js";
import { sendDict } from "./i18n.js";
import { OptionsForm } from "./options-form.js";
import { filesOfDrop } from "./picking.js";
import { useSend, type Options, type Picked } from "./store.js";
import { textFile } from "./text-file.js";

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
      <HiddenFileInput inputRef={input} onFiles={onFiles} />
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
        <strong>{t("selected", { n: picked.length, size: formatBytes(total) })}</strong>
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

/** Picking files (or typing text) and options; the submit creates the upload session. */
export function Compose({ policy, options }: { policy: PublicPolicy; options: Options }) {
  const t = useT(sendDict);
  const describe = useErrorText();
  const { mode, picked, text, phase, error, cancelled, skippedFolders, addFiles, setMode, start } =
    useSend();
  // The text as the file it becomes, for its name and the size limits.
  const asFile = useMemo(() => (text === "" ? null : textFile(text)), [text]);
  const list: Picked[] =
    mode === "files" ? picked : asFile ? [{ key: "text", file: asFile, name: asFile.name }] : [];
  const problems = checkSend(list, options, policy, t);
  const blocked =
    list.length === 0 ||
    problems.files.length > 0 ||
    Boolean(problems.days || problems.downloads || problems.password);
  const busy = phase === "creating";
  const label = busy
    ? t("creating")
    : mode === "text"
      ? t("sendText")
      : picked.length > 1
        ? t("sendN", { n: picked.length })
        : t("send");
  return (
    <form
      className="send"
      onSubmit={(e) => {
        e.preventDefault();
        if (!blocked && !busy) void start();
      }}
    >
      {cancelled ? <CancelledNotice cancelled={cancelled} /> : null}
      <ModeTabs mode={mode} onMode={setMode} />
      {mode === "text" ? (
        <TextPanel text={text} name={asFile?.name ?? ""} problems={problems.files} />
      ) : (
        <div
          className="send-files"
          id="send-panel-files"
          role="tabpanel"
          aria-labelledby="send-tab-files"
        >
          <DropZone onFiles={addFiles} compact={picked.length > 0} />
          {skippedFolders > 0 ? (
            <Notice kind="warn">{t("foldersSkipped", { n: skippedFolders })}</Notice>
          ) : null}
          {picked.length === 0 ? (
            <p className="muted center small">
              {t("dropHint", {
                files: policy.max_files,
                file: formatBytes(sendLimits(policy).file),
                total: formatBytes(sendLimits(policy).parcel),
              })}
            </p>
          ) : (
            <FileList picked={picked} problems={problems.files} maxFile={sendLimits(policy).file} />
          )}
        </div>
      )}
      <OptionsForm options={options} policy={policy} problems={problems} files={list.length} />
      <Notice kind="error">{error ? describe(error) : null}</Notice>
      <div className="send-actions">
        <button type="submit" className="primary big" disabled={blocked || busy}>
          {label}
        </button>
      </div>
    </form>
  );
}
