import type { Sort, TableWindow, Words } from "./connections-table.js";

/** The messages between the connections page and its worker (connections-worker.ts). */

/** What the page shows now: the worker answers with exactly that. */
export interface ViewRequest {
  query: string;
  sort: Sort;
  /** The rows asked for (end excluded), around the ones in view. */
  start: number;
  end: number;
  /** Id of the connection whose details are open. */
  picked: string | null;
  words: Words;
}

export type ToWorker =
  | { type: "view"; view: ViewRequest }
  /** Ask the service again now (after a close); answered with `refreshed` holding `id`. */
  | { type: "refresh"; id: number }
  /** The tab was hidden (no asking the service) or shown again (ask at once). */
  | { type: "visible"; visible: boolean };

/** A failed call, as the API client's error carries it (rebuilt into one on the page). */
export interface FailureData {
  status: number;
  message: string;
  body: Record<string, unknown>;
  retryAfter: number | null;
  /** Not an answer of the service at all (a bug): only the message means something. */
  other?: boolean;
}

export type FromWorker =
  | { type: "window"; window: TableWindow; refreshed: number[] }
  | { type: "failure"; failure: FailureData; refreshed: number[] };
