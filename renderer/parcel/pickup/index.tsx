import type { AreaProps } from "../app.js";

/** Placeholder until this area's screen lands (work in progress in this session). */
export default function Screen(_props: AreaProps) {
  return <p className="muted">pickup</p>;
}
