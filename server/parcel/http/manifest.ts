import { ManifestSchema } from "../../contract/parcel-views.js";
import { parseOr400 } from "../../http/validate.js";
import { checkManifest, type Manifest } from "../domain/admission.js";
import type { Policy } from "../domain/policy.js";

/**
 * A `POST /uploads` body as a manifest: its shape from the contract (a 400 naming the field),
 * then the policy's rules (domain/admission.ts).
 */
export function parseManifest(policy: Policy, body: unknown): Manifest {
  return checkManifest(policy, parseOr400(ManifestSchema, body));
}
