import { z } from "zod";

/** The check of every stored blob against its name (`POST /admin/verify`, `GET /admin/verify`). */

const count = z.number().int().min(0);
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** How a stored copy was found wrong: its size, its content (sha256), gone, or unreadable. */
export const VERIFY_REASONS = ["size", "content", "missing", "unreadable"] as const;

/**
 * What became of a blob found wrong, as it stands now: still in quarantine; stored again by a
 * later upload of the same content; or gone, every file that used it having ended.
 */
export const VERIFY_OUTCOMES = ["quarantined", "stored_again", "removed"] as const;

/**
 * `GET /admin/verify` (and the answer of `POST /admin/verify`): the running check, or the last
 * one. `bad` lists each blob found wrong with the ids of the files whose content it is;
 * `found` says the same for people (the files' names, how many parcels, why, and what
 * became of it).
 * `finished_at` stays null for a check that stopped before its end (the service was stopped).
 */
export const VerifyStatusSchema = z
  .object({
    running: z.boolean(),
    checked: count,
    total: count,
    bad: z.array(z.object({ sha256, files: z.array(z.string()) }).strict()),
    started_at: z.number().int().nullable(),
    finished_at: z.number().int().nullable(),
    found: z.array(
      z
        .object({
          sha256,
          reason: z.enum(VERIFY_REASONS),
          /** Names of the files whose content it is (the first few). */
          names: z.array(z.string()),
          /** How many parcels hold those files (each is affected until the content is sent again). */
          parcels: count,
          outcome: z.enum(VERIFY_OUTCOMES),
        })
        .strict(),
    ),
    /** When the check runs again by itself (weekly), Unix seconds. */
    next_at: z.number().int(),
  })
  .strict();
export type VerifyStatus = z.infer<typeof VerifyStatusSchema>;
export type VerifyReason = (typeof VERIFY_REASONS)[number];
export type VerifyOutcome = (typeof VERIFY_OUTCOMES)[number];
