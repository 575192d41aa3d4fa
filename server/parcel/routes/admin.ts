import { Router } from "express";
import type { ParcelContext } from "../context.js";

/** Placeholder: filled in by the work on this resource. */
export function adminRouter(_ctx: ParcelContext): Router {
  return Router();
}
