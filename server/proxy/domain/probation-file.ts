import { readFileSync } from "node:fs";
import type { SqlProxyStore } from "../store/proxy-store.js";
import { copyState, stepBetween, type ProbationStep, type StateCopy } from "./probation-steps.js";

/** A change waiting for confirmation: its deadline and the steps that undo it. */
export interface Pending {
  deadlineMs: number;
  steps: ProbationStep[];
}

/**
 * Reads the rollback point a run left. A point written by an earlier version holds the whole
 * state before the change (`point`); it becomes one step from that state to the stored one,
 * which undoes to exactly that state, as that version would have.
 */
export function readPending(file: string, store: SqlProxyStore): Pending {
  const saved = JSON.parse(readFileSync(file, "utf8")) as Partial<Pending> & {
    point?: StateCopy;
  };
  if (Array.isArray(saved.steps)) {
    return { deadlineMs: Number(saved.deadlineMs), steps: saved.steps };
  }
  if (saved.point && typeof saved.point === "object" && saved.point.settings) {
    const now = copyState(store, saved.point.subscriptions !== undefined);
    return { deadlineMs: Number(saved.deadlineMs), steps: [stepBetween(saved.point, now)] };
  }
  throw new Error("the rollback point names no change");
}
