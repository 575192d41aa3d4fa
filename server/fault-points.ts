/**
 * Named crash points for the fault-injection tests. A test starts the headless service with
 * `GATEHOUSE_FAULT=<point>[@<n>][:kill|:pause][,…]`; the service then dies by SIGKILL (or, with
 * `:pause`, stops that one piece of work for good and prints `fault point reached: <point>` on
 * stderr, so the test can kill it at exactly that moment) the n-th time (default: the first)
 * the code passes the point. Nothing is armed unless the variable is set, and only the headless
 * entry reads it, so a point costs one Map lookup in production.
 *
 * The names live here, in one list, so a test cannot arm a point the code does not have.
 */
export const FAULT_POINTS = [
  /**
   * A change of the proxy's stored state (settings, a restore, rules, subscriptions) is
   * committed to the database, before it is applied to the core.
   */
  "proxy.settings-committed",
  /** A change that needs confirming has its rollback point, not yet written to disk. */
  "proxy.before-probation-file",
  /** An unconfirmed change was undone in the database; its rollback point is still on disk. */
  "proxy.probation-reverted",
  /** A download has sent its first piece of body (the recipient is half-way through). */
  "parcel.download-mid-body",
  /** An upload's bytes were renamed into `blobs/`, before the file's row records them. */
  "parcel.blob-placed",
  /** A blob's record is marked quarantined, before its file leaves `blobs/`. */
  "parcel.quarantine-marked",
  /** A scrub has checked a blob and goes on to the next (`@n`: after the n-th). */
  "parcel.scrub-mid",
  /** A cleanup removed a batch of ended records and goes on (`@n`: after the n-th batch). */
  "parcel.cleanup-records",
  /** A cleanup deleted a batch of unreferenced blobs and goes on (`@n`: after the n-th). */
  "parcel.cleanup-blobs",
] as const;

export type FaultPoint = (typeof FAULT_POINTS)[number];
export type FaultAction = "kill" | "pause";

interface Armed {
  action: FaultAction;
  /** Passes left before the point fires (1 = the next pass). */
  remaining: number;
}

const armed = new Map<FaultPoint, Armed>();

/** Thrown for a malformed `GATEHOUSE_FAULT` (the headless entry turns it into exit 2). */
export class FaultSpecError extends Error {}

/** Parses and arms `GATEHOUSE_FAULT`; an empty or absent value disarms every point. */
export function armFaultPoints(spec: string | undefined): void {
  armed.clear();
  if (!spec) return;
  for (const part of spec.split(",")) {
    const m = /^([a-z0-9.-]+)(?:@(\d+))?(?::(kill|pause))?$/.exec(part.trim());
    if (!m) throw new FaultSpecError(`GATEHOUSE_FAULT: cannot read "${part}"`);
    const name = m[1] as FaultPoint;
    if (!FAULT_POINTS.includes(name)) {
      throw new FaultSpecError(`GATEHOUSE_FAULT: there is no fault point "${m[1]}"`);
    }
    const remaining = m[2] === undefined ? 1 : Number(m[2]);
    if (!Number.isSafeInteger(remaining) || remaining < 1) {
      throw new FaultSpecError(`GATEHOUSE_FAULT: "${part}" must count from 1`);
    }
    armed.set(name, { action: (m[3] as FaultAction | undefined) ?? "kill", remaining });
  }
}

/** True when this pass is the one the point fires on (counts the pass). */
function fires(point: FaultPoint): Armed | undefined {
  const a = armed.get(point);
  if (!a) return undefined;
  a.remaining -= 1;
  if (a.remaining > 0) return undefined;
  armed.delete(point);
  return a;
}

function announce(point: FaultPoint): void {
  // Synchronous write: the line must be out before the process stops or dies.
  process.stderr.write(`fault point reached: ${point}\n`);
}

function die(): never {
  process.kill(process.pid, "SIGKILL");
  // SIGKILL is delivered before the next instruction matters; this only satisfies `never`.
  throw new Error("unreachable");
}

/**
 * A point in synchronous code: dies there when armed. `pause` cannot hold synchronous code
 * without stalling everything else, so it is treated as `kill` here.
 */
export function crashPoint(point: FaultPoint): void {
  if (armed.size === 0) return;
  if (!fires(point)) return;
  announce(point);
  die();
}

/**
 * A point between two awaits: resolves at once unless armed; `kill` dies there, `pause` never
 * resolves (this piece of work stops; the rest of the service goes on) after announcing it.
 */
export function faultPoint(point: FaultPoint): Promise<void> {
  if (armed.size === 0) return Promise.resolve();
  const a = fires(point);
  if (!a) return Promise.resolve();
  announce(point);
  if (a.action === "kill") die();
  return new Promise<void>(() => {});
}
