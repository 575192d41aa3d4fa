import { useId, type ReactNode } from "react";

/** What a field hands its control so the label, hint and error belong to it. */
export interface FieldControl {
  id: string;
  "aria-invalid": boolean;
  "aria-describedby"?: string;
}

/**
 * One labelled form field for every page: the label names the control, and the error (or,
 * while there is none, the hint) is tied to it with aria-describedby, so a screen reader says
 * why a value is refused where the eye sees it; aria-invalid marks the refused value.
 */
export function Field({
  label,
  error,
  hint,
  help,
  changed = false,
  describedBy,
  look = "field",
  className = "",
  notesTogether = false,
  name,
  children,
}: {
  label: string;
  error?: string;
  hint?: string;
  /** A longer explanation, folded away under the field. */
  help?: ReactNode;
  /** Differs from the saved value (marked beside the label). */
  changed?: boolean;
  /** Another element that explains the value, read after the field's own note. */
  describedBy?: string;
  /**
   * The class family the page styles fields with: `field` (send page, proxy console) or
   * `adm-field` (admin); `-bad`, `-changed`, `-error` and `-hint` follow from it.
   */
  look?: "field" | "adm-field";
  /** More classes for the field's box (a wide field, for example). */
  className?: string;
  /**
   * Keep the hint beside the error (the desktop settings, whose hints say what a change
   * restarts): both in one note the control is described by.
   */
  notesTogether?: boolean;
  /** The setting the field edits, as `data-field` on its box. */
  name?: string;
  children: (control: FieldControl) => ReactNode;
}) {
  const id = useId();
  const note = notesTogether
    ? `${id}-notes`
    : error
      ? `${id}-err`
      : hint
        ? `${id}-hint`
        : undefined;
  const described = [note, describedBy].filter(Boolean).join(" ") || undefined;
  const box = [look, className, error ? `${look}-bad` : "", changed ? `${look}-changed` : ""];
  return (
    <div className={box.filter(Boolean).join(" ")} data-field={name}>
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-invalid": Boolean(error), "aria-describedby": described })}
      {notesTogether ? (
        <span id={`${id}-notes`}>
          {error ? <span className={`${look}-error`}>{error} </span> : null}
          {hint ? <span className={`${look}-hint`}>{hint}</span> : null}
        </span>
      ) : error ? (
        <span id={`${id}-err`} className={`${look}-error`}>
          {error}
        </span>
      ) : hint ? (
        <span id={`${id}-hint`} className={`${look}-hint`}>
          {hint}
        </span>
      ) : null}
      {help}
    </div>
  );
}
