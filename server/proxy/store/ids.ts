import { randomBytes } from "node:crypto";

/** Stable random record id: 24 hexadecimal characters (96 bits). */
export function newId(): string {
  return randomBytes(12).toString("hex");
}
