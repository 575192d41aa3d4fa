/**
 * Text sent from the "Text" tab travels as a UTF-8 `.txt` file of the parcel. Its name is
 * always the same and never words of the text: a file name is shown in the pickup page before
 * the text is opened, in the administrator's lists and in the audit log, so a name taken from
 * the first line ("Wi-Fi password for guests: …") would show what the sender typed to people
 * who were never meant to read it.
 */
export const TEXT_FILE_NAME = "text.txt";

/** The text as the file that is uploaded: UTF-8, exactly the characters typed. */
export function textFile(text: string): File {
  return new File([text], TEXT_FILE_NAME, { type: "text/plain;charset=utf-8" });
}
