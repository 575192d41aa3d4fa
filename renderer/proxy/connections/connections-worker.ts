import type { PROXY_API } from "../../../server/contract/proxy-api.js";
import { ApiError, createApiClient } from "../../shared/api-client.js";
import { forContract } from "../../shared/contract-api.js";
import { ConnectionsChecker } from "./connections-check.js";
import type { FailureData, FromWorker, ToWorker, ViewRequest } from "./connections-protocol.js";
import { ConnectionTable } from "./connections-table.js";

/**
 * The connections page's worker: asks the service for the live connections every second,
 * checks the answer against the contract, keeps the list, searches and orders it, and tells
 * the page only what it shows. Reading, checking and ordering tens of thousands of
 * connections happens here, so the page's own thread stays free to draw.
 */

/** How often the service is asked while the page is in view. */
const EVERY_MS = 1000;

/** The part of a dedicated worker's global scope this file uses (the DOM types name the page's). */
interface WorkerScope {
  postMessage(message: FromWorker): void;
  addEventListener(type: "message", listener: (e: MessageEvent<ToWorker>) => void): void;
}
const scope = self as unknown as WorkerScope;

// Only GETs: no CSRF token to add. A 401 is told to the page, which ends the session.
const checker = new ConnectionsChecker();
// The list's own check: it keeps the rows that did not change from one answer to the next.
const api = forContract<typeof PROXY_API>()(createApiClient(), { "GET /connections": checker });
const table = new ConnectionTable();
let view: ViewRequest | null = null;
let visible = true;
let busy = false;
let timer: ReturnType<typeof setTimeout> | undefined;
/** Refreshes asked for since the current request began: answered after the next one. */
let waiting: number[] = [];
/** Refreshes done before the page said what it shows: answered with its first window. */
let owed: number[] = [];

function failureOf(err: unknown): FailureData {
  if (err instanceof ApiError)
    return { status: err.status, message: err.message, body: err.body, retryAfter: err.retryAfter };
  return {
    status: 0,
    message: err instanceof Error ? err.message : String(err),
    body: {},
    retryAfter: null,
    other: true,
  };
}

function answer(refreshed: number[]): void {
  owed.push(...refreshed);
  if (!view || !table.loaded) return;
  table.setWords(view.words);
  table.setQuery(view.query);
  table.setSort(view.sort);
  scope.postMessage({
    type: "window",
    window: table.window(view.start, view.end, view.picked),
    refreshed: owed,
  });
  owed = [];
}

function schedule(delay: number): void {
  clearTimeout(timer);
  timer = undefined;
  if (visible || waiting.length > 0) timer = setTimeout(() => void poll(), delay);
}

async function poll(): Promise<void> {
  if (busy) return;
  busy = true;
  clearTimeout(timer);
  const refreshed = waiting;
  waiting = [];
  const began = Date.now();
  try {
    const view = await api("GET /connections");
    table.setData(view, checker.unchanged);
    answer(refreshed);
  } catch (err) {
    // Without its core no connection lives on: a search or a new order must not bring the
    // last list back.
    if (err instanceof ApiError && err.code === "core.unreachable") table.forget();
    scope.postMessage({ type: "failure", failure: failureOf(err), refreshed });
  } finally {
    busy = false;
    schedule(waiting.length > 0 ? 0 : Math.max(0, EVERY_MS - (Date.now() - began)));
  }
}

scope.addEventListener("message", (e) => {
  const msg = e.data;
  switch (msg.type) {
    case "view":
      view = msg.view;
      answer([]);
      break;
    case "refresh":
      waiting.push(msg.id);
      if (!busy) void poll();
      break;
    case "visible":
      visible = msg.visible;
      if (!visible) clearTimeout(timer);
      else if (!busy) void poll();
      break;
  }
});

void poll();
