import "./ui.css";
/** A labelled progress bar (0..1); `state` colours it for failures and completion. */
export function ProgressBar({
  value,
  label,
  state = "active",
  size = "normal",
}: {
  value: number;
  label: string;
  state?: "active" | "done" | "failed" | "idle";
  size?: "normal" | "thin";
}) {
  const pct = Math.max(0, Math.min(100, Math.round(value * 1000) / 10));
  return (
    <div
      className={`progress progress-${state} progress-${size}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.floor(pct)}
    >
      <div className="progress-fill" style={{ width: `${pct}%` }} />
    </div>
  );
}

/** One file's thin bar while it uploads: full once done, red when failed, grey while queued. */
export function FileProgress(props: { name: string; loaded: number; size: number; state: string }) {
  const { name, loaded, size, state } = props;
  return (
    <ProgressBar
      size="thin"
      label={name}
      value={state === "done" ? 1 : size ? loaded / size : 0}
      state={
        state === "done"
          ? "done"
          : state === "failed"
            ? "failed"
            : state === "queued"
              ? "idle"
              : "active"
      }
    />
  );
}
