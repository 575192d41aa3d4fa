import { useEffect } from "react";
import type { AreaProps } from "../app.js";
import { useT } from "../i18n.js";
import { KeychainNotice } from "../desktop/keychain-notice.js";
import { useApp } from "../store.js";
import { useErrorText } from "../ui/errors.js";
import { Notice, RetryNotice } from "../ui/notice.js";
import { Compose } from "./compose.js";
import { DoneView } from "./done-view.js";
import { sendDict } from "./i18n.js";
import { useInterrupted } from "./interrupted.js";
import { InterruptedView } from "./interrupted-view.js";
import { ProgressView } from "./progress-view.js";
import { filesOfDrop } from "./picking.js";
import { useSend } from "./store.js";
import "./send.css";

/**
 * `#/`: pick files, upload them (streamed, three at a time) and publish. The upload lives in a
 * module store, so switching to another screen and back does not interrupt it.
 */
export default function SendScreen(_props: AreaProps) {
  const t = useT(sendDict);
  const describe = useErrorText();
  const policyState = useApp((s) => s.policy);
  const loadPolicy = useApp((s) => s.loadPolicy);
  const { phase, mode, options, result, initOptions, addFiles } = useSend();
  const policy = policyState.phase === "ready" ? policyState.policy : null;
  const interrupted = useInterrupted((s) => s.upload !== null);
  const recall = useInterrupted((s) => s.recall);

  // An upload a reload interrupted is offered again before anything new is picked.
  useEffect(() => {
    void recall();
  }, [recall]);

  useEffect(() => {
    if (policy) initOptions(policy);
  }, [policy, initOptions]);

  // Files dropped anywhere on the page are added, never opened by the browser instead.
  useEffect(() => {
    const over = (e: DragEvent) => {
      if (Array.from(e.dataTransfer?.types ?? []).includes("Files")) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      if (!e.dataTransfer?.files.length) return;
      e.preventDefault();
      if (useSend.getState().phase !== "compose") return;
      const { files, folders } = filesOfDrop(e.dataTransfer);
      if (useInterrupted.getState().upload) useInterrupted.getState().choose(files);
      else addFiles(files, folders);
    };
    // Pasted files (a screenshot, files copied in the file manager) are added too.
    const paste = (e: ClipboardEvent) => {
      const files = Array.from(e.clipboardData?.files ?? []);
      if (files.length === 0 || useSend.getState().phase !== "compose") return;
      e.preventDefault();
      if (useInterrupted.getState().upload) useInterrupted.getState().choose(files);
      else addFiles(files);
    };
    window.addEventListener("dragover", over);
    window.addEventListener("drop", drop);
    window.addEventListener("paste", paste);
    return () => {
      window.removeEventListener("dragover", over);
      window.removeEventListener("drop", drop);
      window.removeEventListener("paste", paste);
    };
  }, [addFiles]);

  // Closing the tab mid-upload loses the session: the browser asks first.
  useEffect(() => {
    if (phase !== "uploading" && phase !== "publishing" && phase !== "creating") return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [phase]);

  let body;
  if (policyState.phase === "loading") body = <p className="muted">…</p>;
  else if (policyState.phase === "error")
    body = (
      <RetryNotice retry={t("retry")} onRetry={() => void loadPolicy()}>
        {t("policyFailed")} {describe(policyState.error)}
      </RetryNotice>
    );
  else if (phase === "done" && result) body = <DoneView result={result} />;
  else if (phase === "uploading" || phase === "publishing") body = <ProgressView />;
  else if (interrupted) body = <InterruptedView />;
  else if (!policyState.policy.uploads_enabled)
    body = <Notice kind="warn">{t("uploadsOff")}</Notice>;
  else if (options) body = <Compose policy={policyState.policy} options={options} />;

  return (
    <div className="send-screen">
      <h1>{mode === "text" ? t("headingText") : t("heading")}</h1>
      <KeychainNotice />
      {(phase === "compose" || phase === "creating") && !interrupted ? (
        <p className="muted">{mode === "text" ? t("leadText") : t("lead")}</p>
      ) : null}
      {body}
    </div>
  );
}
