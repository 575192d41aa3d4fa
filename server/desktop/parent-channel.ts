import { checkHostMessage, type HostMessage, type ServiceMessage } from "./protocol.js";

/** Electron's `process.parentPort` in a utility process: messages arrive as `{ data }`. */
export interface ParentPortLike {
  on(event: "message", listener: (event: { data: unknown }) => void): unknown;
  postMessage(message: unknown): void;
}

/** The parts of `process` the channel uses (a fake stands in for it in tests). */
export interface ProcessSide {
  parentPort?: ParentPortLike | null;
  send?(message: unknown): boolean;
  /** False once a Node child's IPC channel has closed. */
  connected?: boolean;
  on(event: "message", listener: (message: unknown) => void): unknown;
  on(event: "disconnect", listener: () => void): unknown;
}

export interface ParentChannel {
  /** How this process talks to its parent. */
  readonly kind: "utility" | "node" | "none";
  post(message: ServiceMessage): void;
  /** Valid messages from the host; anything else is reported to `onInvalid` and dropped. */
  onMessage(listener: (message: HostMessage) => void): void;
  /** The parent went away (a Node child's IPC channel closed). */
  onGone(listener: () => void): void;
}

/**
 * The services' end of the host protocol. An Electron utility process receives on
 * `process.parentPort` (each message wrapped as `event.data`) and has no `process.send`; a
 * Node child (development, tests) receives on `process.on("message")`. Listening on the wrong
 * one means never hearing `stop`, so the kind is decided once, here.
 */
export function parentChannel(
  proc: ProcessSide,
  onInvalid: (problem: string) => void,
): ParentChannel {
  const port = proc.parentPort ?? null;
  const kind = port ? "utility" : proc.send ? "node" : "none";
  const listeners: Array<(m: HostMessage) => void> = [];
  const receive = (raw: unknown): void => {
    const checked = checkHostMessage(raw);
    if (!checked.ok) return onInvalid(checked.problem);
    for (const l of listeners) l(checked.message);
  };
  if (port) port.on("message", (event) => receive(event?.data));
  else if (kind === "node") proc.on("message", receive);

  return {
    kind,
    post(message) {
      try {
        if (port) port.postMessage(message);
        // Sending on a closed channel would raise an 'error' event on the process.
        else if (proc.send && proc.connected !== false) proc.send(message);
      } catch {
        // The parent is gone (a closed IPC channel throws); it hears nothing more anyway.
      }
    },
    onMessage(listener) {
      listeners.push(listener);
    },
    onGone(listener) {
      if (kind === "node") proc.on("disconnect", listener);
    },
  };
}
