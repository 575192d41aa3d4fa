import type { ReactNode } from "react";
import { useT } from "../i18n.js";

/**
 * A question asked before a change that cannot be taken back: the sentence, then the
 * change's own button (red) beside Cancel, in a group named for screen readers.
 */
export function ConfirmBox(props: {
  /** What the group is, for screen readers. */
  label: string;
  question: ReactNode;
  /** The button that goes ahead, named for what it does ("Restore", "Go back"). */
  yes: string;
  onYes(): void;
  onNo(): void;
  className?: string;
}) {
  const t = useT();
  return (
    <div
      className={props.className ? `confirm-box ${props.className}` : "confirm-box"}
      role="group"
      aria-label={props.label}
    >
      <p>{props.question}</p>
      <div className="button-row">
        <button type="button" className="danger" onClick={props.onYes}>
          {props.yes}
        </button>
        <button type="button" onClick={props.onNo}>
          {t("common.cancel")}
        </button>
      </div>
    </div>
  );
}
