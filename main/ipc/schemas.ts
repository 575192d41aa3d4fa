import { z } from "zod";

/**
 * Argument rules of the desktop's IPC handlers. A page that calls with anything else (a
 * compromised page, a script injected into one) gets a refusal before any handler runs.
 */

/** Parcel, file and upload ids: random base64url words (22 characters today). */
export const parcelId = z.string().regex(/^[A-Za-z0-9_-]{16,64}$/);

/** A manage_token: one base64url word (65 characters today). */
export const manageToken = z.string().regex(/^[A-Za-z0-9_-]{20,200}$/);

/** Only web addresses leave the app for the system browser: never file:, javascript: or apps. */
export const webUrl = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
    } catch {
      return false;
    }
  });

export const operatorService = z.enum(["parcel", "proxy"]);

/** What the window can be asked to show (the tray's areas; "settings" is the Desktop screen). */
export const openArea = z.enum(["window", "send", "mine", "admin", "proxy", "settings"]);

/** Any password a service could take; the service itself judges its rules. */
export const password = z.string().min(1).max(1024);

const SETTINGS_PATCH_BYTES = 16 * 1024;

/** Member names and plain JSON values; what they may hold is the settings module's to check. */
export const settingsPatch = z
  .record(z.string().regex(/^[A-Za-z][A-Za-z0-9]{0,39}$/), z.json())
  .refine((patch) => Object.keys(patch).length <= 32)
  .refine((patch) => JSON.stringify(patch).length <= SETTINGS_PATCH_BYTES);

/** Network interface names as the OS spells them ("eth0", "Wi-Fi 2"): no control characters. */
export const interfaceNames = z
  .array(
    z
      .string()
      .min(1)
      .max(64)
      .regex(/^[^\p{Cc}]+$/u),
  )
  .max(64)
  .refine((names) => new Set(names).size === names.length);

export const noArgs = z.tuple([]);

/** How long the inbox stays open, in minutes (up to a week), as the parcel service takes it. */
export const inboxMinutes = z.number().int().min(1).max(10080);

/** The inbox's password, or none. */
export const inboxPassword = z.string().min(1).max(1024).nullable();
