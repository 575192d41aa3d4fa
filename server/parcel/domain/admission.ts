import { DomainError } from "../../domain-errors.js";
import type { SessionsRepo } from "../repos/sessions.js";
import type { z } from "zod";
import type { ManifestSchema } from "../../contract/parcel-views.js";
import type { Policy, Runtime } from "./policy.js";

/** A validated manifest with the policy defaults applied. */
export interface Manifest {
  files: Array<{ name: string; size: number }>;
  days: number;
  downloads: number;
  /** null when no (or an empty) password was given. */
  password: string | null;
  renew: boolean;
  totalBytes: number;
  /** Sent to the inbox: the policy's terms, no password. */
  inbox: boolean;
}

// C0, DEL and C1 control characters.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/**
 * Invisible format and text-direction characters: the Arabic letter mark, zero-width spaces
 * and joiners, direction marks, embeddings and overrides, isolates, the word joiner and the
 * byte order mark. They let a name show something other than what it is
 * (`invoice\u202Efdp.exe` displays as `invoiceexe.pdf`).
 */
const FORMAT = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a file name is refused: a stable reason (sent as a param) and the English words. */
export interface FileNameIssue {
  reason: "empty" | "encoding" | "too_long" | "slash" | "control" | "invisible" | "dots";
  text: string;
}

/** Why a file name is refused, or null when it is acceptable. */
export function fileNameIssue(name: string): FileNameIssue | null {
  const issue = (reason: FileNameIssue["reason"], text: string) => ({ reason, text });
  if (name.length === 0) return issue("empty", "a file name must not be empty");
  if (LONE_SURROGATE.test(name)) return issue("encoding", "a file name must be valid UTF-8");
  if (Buffer.byteLength(name, "utf8") > 255)
    return issue("too_long", "a file name must be at most 255 bytes");
  if (name.includes("/") || name.includes("\\"))
    return issue("slash", "a file name must not contain / or \\");
  if (CONTROL.test(name))
    return issue("control", "a file name must not contain control characters");
  if (FORMAT.test(name))
    return issue(
      "invisible",
      "a file name must not contain invisible or text-direction characters",
    );
  if (name === "." || name === "..") return issue("dots", "a file name must not be . or ..");
  return null;
}

/** Why a file name is refused, in English, or null when it is acceptable. */
export function fileNameProblem(name: string): string | null {
  return fileNameIssue(name)?.text ?? null;
}

/**
 * A name as it can be shown safely in a message: control, format and lone surrogate
 * characters are written as `<U+XXXX>` so the message cannot be reordered or hidden by them.
 */
export function printableName(name: string): string {
  const chars = Array.from(name);
  const shown = chars.length > 80 ? `${chars.slice(0, 80).join("")}…` : name;
  // With the `u` flag the surrogate range matches only lone halves, never a valid pair.
  return shown.replace(
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ud800-\udfff]/gu,
    (c) => `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}>`,
  );
}

/**
 * The key under which two names count as the same file: Unicode NFC (so a precomposed and a
 * decomposed `é` agree) and then case folding. Lower-casing the upper-cased text folds the
 * cases JavaScript can express (`ß` and `SS`, final and medial sigma, the Kelvin sign and `k`).
 */
export function nameKey(name: string): string {
  return name.normalize("NFC").toUpperCase().toLowerCase().normalize("NFC");
}

/** Each name acceptable on every system, and no two the same name written differently. */
function checkFileNames(files: ReadonlyArray<{ name: string }>): void {
  const seen = new Map<string, string>();
  for (const [i, f] of files.entries()) {
    const problem = fileNameIssue(f.name);
    if (problem)
      throw new DomainError(
        "invalid",
        "upload.file_name",
        `The name of file ${i + 1} ("${printableName(f.name)}") is refused: ${problem.text}.`,
        { params: { index: i + 1, name: printableName(f.name), reason: problem.reason } },
      );
    const key = nameKey(f.name);
    const earlier = seen.get(key);
    if (earlier !== undefined)
      throw new DomainError(
        "invalid",
        "upload.same_name",
        `The file names "${printableName(earlier)}" and "${printableName(f.name)}" are the same name written differently; every file needs its own name.`,
        { params: { first: printableName(earlier), second: printableName(f.name) } },
      );
    seen.set(key, f.name);
  }
}

/**
 * Checks a `POST /uploads` body of the right shape against the policy and applies its
 * defaults: names, counts and terms -> invalid (400), a size over `max_file_bytes` or a total
 * over `max_parcel_bytes` -> too large (413).
 */
export function checkManifest(policy: Policy, m: z.infer<typeof ManifestSchema>): Manifest {
  const inbox = m.inbox === true;
  // The computer's owner fetches an inbox parcel with its code: its sender sets no terms.
  if (
    inbox &&
    (m.days !== undefined ||
      m.downloads !== undefined ||
      m.password !== undefined ||
      m.renew !== undefined)
  )
    throw new DomainError(
      "invalid",
      "upload.inbox_terms",
      "Files sent to an inbox take no days, downloads, password or renewal: the computer's owner keeps them on the service's usual terms",
    );
  if (m.files.length > policy.max_files)
    throw new DomainError(
      "invalid",
      "upload.too_many_files",
      `A parcel may hold at most ${policy.max_files} files`,
      { params: { limit: policy.max_files } },
    );
  checkFileNames(m.files);
  const days = m.days ?? policy.default_days;
  if (days > policy.max_days)
    throw new DomainError(
      "invalid",
      "upload.days",
      `Invalid days: at most ${policy.max_days} days are allowed`,
      { params: { max: policy.max_days } },
    );
  const downloads = m.downloads ?? policy.default_downloads;
  if (downloads > policy.max_downloads)
    throw new DomainError(
      "invalid",
      "upload.downloads",
      `Invalid downloads: at most ${policy.max_downloads} are allowed`,
      { params: { max: policy.max_downloads } },
    );
  const password = m.password ? m.password : null;
  if (policy.require_password && password === null && !inbox)
    throw new DomainError(
      "invalid",
      "upload.password_required",
      "A password is required for every parcel",
    );
  let totalBytes = 0;
  for (const f of m.files) {
    if (f.size > policy.max_file_bytes)
      throw new DomainError(
        "too_large",
        "upload.file_too_large",
        `${f.name} is larger than ${policy.max_file_bytes} bytes`,
        { params: { name: printableName(f.name), limit: policy.max_file_bytes } },
      );
    totalBytes += f.size;
  }
  if (totalBytes > policy.max_parcel_bytes)
    throw new DomainError(
      "too_large",
      "upload.parcel_too_large",
      `The parcel is larger than ${policy.max_parcel_bytes} bytes`,
      { params: { limit: policy.max_parcel_bytes } },
    );
  return {
    files: m.files,
    days,
    downloads,
    password,
    renew: m.renew ?? policy.default_renew,
    totalBytes,
    inbox,
  };
}

/** Current storage usage that admission compares against the budgets. */
export interface Usage {
  /** Bytes of stored blobs. */
  storedBytes: number;
  /** Open reservations: declared bytes of files not yet ready in open sessions. */
  reservedBytes: number;
  /** Files of live parcels (uploading, published, review). */
  files: number;
  /** Real free bytes on the data dir's file system. */
  diskFree: number;
}

/**
 * Whether a new session of `bytes` in `files` files fits the file budget, the data budget
 * and free disk minus headroom minus every open reservation. Returns the reason it does not,
 * or null. Pure, so the rules are unit tested apart from the database.
 */
export function admissionProblem(
  usage: Usage,
  request: { bytes: number; files: number },
  runtime: Pick<Runtime, "file_budget" | "data_budget_bytes" | "disk_headroom_bytes">,
): string | null {
  return admissionRefusal(usage, request, runtime)?.message ?? null;
}

/** `admissionProblem` as the refusal to answer (507), with its code. */
export function admissionRefusal(
  usage: Usage,
  request: { bytes: number; files: number },
  runtime: Pick<Runtime, "file_budget" | "data_budget_bytes" | "disk_headroom_bytes">,
): DomainError | null {
  if (usage.files + request.files > runtime.file_budget)
    return new DomainError("limit", "storage.file_budget", "The service's file budget is used up");
  if (usage.storedBytes + usage.reservedBytes + request.bytes > runtime.data_budget_bytes)
    return new DomainError("limit", "storage.data_budget", "The service's data budget is used up");
  if (usage.diskFree - runtime.disk_headroom_bytes - usage.reservedBytes - request.bytes < 0)
    return new DomainError(
      "limit",
      "storage.disk_space",
      "There is not enough free disk space for this parcel",
    );
  return null;
}

/**
 * Reads the usage that admission needs (call it inside the admitting transaction). A session
 * past its deadline holds nothing, even before a sweep has revoked it.
 */
export function readUsage(sessions: SessionsRepo, diskFree: number, now: number): Usage {
  return { ...sessions.usage(now), diskFree };
}
