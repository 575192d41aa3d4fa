import { z } from "zod";

/** Signing in and out, the first setup and the password change. */

/** `GET /health`: answered to everyone, so a supervisor or a smoke test knows the service runs. */
export const ProxyHealthSchema = z
  .object({ ok: z.literal(true), initialized: z.boolean(), version: z.string() })
  .strict();
export type ProxyHealth = z.output<typeof ProxyHealthSchema>;

/** `GET /auth/status`: answered to everyone, so the console knows which form to show. */
export const AuthStatusSchema = z.object({
  initialized: z.boolean(),
  authenticated: z.boolean(),
  /** The session's CSRF token ("" without a session). */
  csrf: z.string(),
});
export type AuthStatus = z.output<typeof AuthStatusSchema>;

export const SetupBodySchema = z.object({
  token: z.string("must be a string"),
  password: z.string("must be a string"),
});
export const LoginBodySchema = z.object({ password: z.string("must be a string") });
export const PasswordBodySchema = z.object({
  currentPassword: z.string("must be a string"),
  password: z.string("must be a string"),
});

/** A new session (or the one kept after a password change) and its CSRF token. */
export const SessionOpenedSchema = z.object({ ok: z.literal(true), csrf: z.string() });
export type SessionOpened = z.output<typeof SessionOpenedSchema>;
