import { useState } from "react";
import { useT } from "../i18n.js";
import { sendDict } from "./i18n.js";

/**
 * Leave one file out of the parcel: asked in the row first ("Leave out photo.jpg?"), the others
 * go on. Used while uploading and in the unfinished-upload view after a reload alike.
 */
export function LeaveOut(props: {
  name: string;
  leaving?: boolean;
  disabled?: boolean;
  onLeave: () => void;
}) {
  const t = useT(sendDict);
  const [asking, setAsking] = useState(false);
  if (props.leaving)
    return (
      <p className="muted small" role="status">
        {t("leavingOut")}
      </p>
    );
  if (!asking)
    return (
      <button
        type="button"
        className="small leave-out"
        disabled={props.disabled}
        onClick={() => setAsking(true)}
      >
        {t("leaveOut")}
        <span className="sr-only"> {props.name}</span>
      </button>
    );
  return (
    <span className="confirm leave-out-confirm" role="group" aria-label={t("leaveOut")}>
      <span>{t("leaveOutConfirm", { name: props.name })}</span>
      <button
        type="button"
        className="danger small"
        disabled={props.disabled}
        onClick={() => {
          setAsking(false);
          props.onLeave();
        }}
      >
        {t("leaveOutYes")}
      </button>
      <button type="button" className="small" onClick={() => setAsking(false)}>
        {t("leaveOutKeep")}
      </button>
    </span>
  );
}
