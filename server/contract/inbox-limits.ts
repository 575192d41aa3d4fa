/**
 * How long an inbox stays open. Apart from the inbox's schemas, with no imports, so the pages
 * and the desktop shell that only need the numbers (the admin's Inbox tab, the Desktop screen,
 * the tray's Open inbox) take them without the schema library.
 */

/** Longest an inbox stays open: a week. */
export const INBOX_MAX_MINUTES = 10080;
/** How long an inbox opened without a duration stays open: an hour. */
export const INBOX_DEFAULT_MINUTES = 60;
