import "./ui.css";
import type { ReactNode } from "react";

export type NoticeKind = "error" | "ok" | "info" | "warn";

/** A message box; errors are announced at once (role=alert), the rest politely. */
export function Notice({
  kind = "info",
  children,
  action,
}: {
  kind?: NoticeKind;
  children: ReactNode;
  /** A button or link shown beside the text (retry, dismiss). */
  action?: ReactNode;
}) {
  if (children === null || children === undefined || children === "" || children === false)
    return null;
  return (
    <div className={`notice notice-${kind}`} role={kind === "error" ? "alert" : "status"}>
      <div className="notice-text">{children}</div>
      {action ? <div className="notice-action">{action}</div> : null}
    </div>
  );
}

/** An error with a button that tries again (its label in the page's words). */
export function RetryNotice({
  retry,
  onRetry,
  children,
}: {
  retry: string;
  onRetry(): void;
  children: ReactNode;
}) {
  return (
    <Notice
      kind="error"
      action={
        <button type="button" onClick={onRetry}>
          {retry}
        </button>
      }
    >
      {children}
    </Notice>
  );
}
