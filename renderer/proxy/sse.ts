import { useEffect, useRef } from "react";
import { api } from "./api.js";
import { useApp } from "./store.js";

export type StreamState = "connecting" | "open" | "error";

/**
 * Subscribes to a server-sent event stream of the service. `expired` sends the operator back
 * to the login form; the browser's own reconnection covers dropped connections.
 */
export function useEventStream(
  /** The contract's key of the stream. */
  key: "GET /events" | "GET /logs",
  /** Per event name; `id` is the event's id ("" when it has none). */
  handlers: Record<string, (data: string, id: string) => void>,
  onState: (state: StreamState) => void,
  enabled = true,
): void {
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;
  const stateRef = useRef(onState);
  stateRef.current = onState;
  useEffect(() => {
    if (!enabled) return;
    const source = new EventSource(api.url(key));
    stateRef.current("connecting");
    source.onopen = () => stateRef.current("open");
    source.onerror = () =>
      stateRef.current(source.readyState === EventSource.CLOSED ? "error" : "connecting");
    source.addEventListener("expired", () => {
      source.close();
      useApp.getState().expired();
    });
    const names = Object.keys(handlersRef.current);
    const listeners = names.map((name) => {
      const listener = (e: MessageEvent<string>) => {
        handlersRef.current[name]?.(e.data, e.lastEventId);
        // A handler may decide the stream is over (logs: `disconnected`).
        if (name === "disconnected") source.close();
      };
      source.addEventListener(name, listener);
      return listener;
    });
    return () => {
      names.forEach((name, i) => source.removeEventListener(name, listeners[i]));
      source.close();
    };
  }, [key, enabled]);
}
