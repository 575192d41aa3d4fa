import { useId, type ReactNode } from "react";

/** A titled section of a screen; its heading names the region for assistive technology. */
export function Card({
  title,
  children,
  actions,
  className = "",
}: {
  title: string;
  children: ReactNode;
  actions?: ReactNode;
  /** The console's own look (each console styles `.card` in its own sheet). */
  className?: string;
}) {
  const id = useId();
  return (
    <section className={className ? `card ${className}` : "card"} aria-labelledby={id}>
      <header className="card-head">
        <h2 id={id}>{title}</h2>
        {actions ? <div className="card-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}
