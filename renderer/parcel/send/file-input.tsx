import type { RefObject } from "react";

/**
 * The page's own file picker, hidden: a visible button opens it with `inputRef.current.click()`.
 * Its value is cleared after each choice, so choosing the same file again still counts.
 */
export function HiddenFileInput({
  inputRef,
  onFiles,
}: {
  inputRef: RefObject<HTMLInputElement | null>;
  onFiles: (files: File[]) => void;
}) {
  return (
    <input
      ref={inputRef}
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
  );
}
