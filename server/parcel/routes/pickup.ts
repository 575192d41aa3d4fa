import { Router } from "express";
import type { ParcelContext } from "../context.js";

/** Placeholder: filled in by the work on this resource. */
export function pickupRouter(_ctx: ParcelContext): Router {
  return Router();
}
