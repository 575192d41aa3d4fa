import type { Lang } from "./lang.js";

/** One recorded problem, ready to show: its sentence is already in the reader's language. */
export interface ShownProblem {
  /** ms since the epoch. */
  timeMs: number;
  level: "warn" | "error";
  text: string;
  requestId: string | null;
}

/** The words around the list, from the console's own string table. */
export interface ProblemLabels {
  title: string;
  none: string;
  intro: string;
  error: string;
  warning: string;
  request: string;
}

/** The labels from a console's translate function: both tables name them `problems.*`. */
export function problemLabels(
  t: (key: `problems.${keyof ProblemLabels}`) => string,
): ProblemLabels {
  return {
    title: t("problems.title"),
    none: t("problems.none"),
    intro: t("problems.intro"),
    error: t("problems.error"),
    warning: t("problems.warning"),
    request: t("problems.request"),
  };
}

/** Each console's class names, so the list keeps the look of the console it sits in. */
export interface ProblemClasses {
  empty: string;
  intro: string;
  list: string;
  head: string;
  message: string;
  request: string;
  badge: (level: "warn" | "error") => string;
}

/**
 * The service's last warnings and errors, newest first (the parcel admin's overview and the
 * proxy dashboard). Each is said in the reader's language by its code; the request id finds
 * the entry in the service's log. `items` is null while the list has not loaded.
 */
export function RecentProblemsList({
  items,
  labels,
  classes,
  lang,
}: {
  items: ShownProblem[] | null;
  labels: ProblemLabels;
  classes: ProblemClasses;
  lang: Lang;
}) {
  if (items === null) return null;
  if (items.length === 0) {
    return (
      <p className={classes.empty} data-testid="problems-empty">
        {labels.none}
      </p>
    );
  }
  return (
    <>
      <p className={classes.intro}>{labels.intro}</p>
      <ol className={classes.list} aria-label={labels.title}>
        {items.map((p, i) => (
          <li key={`${p.timeMs}-${i}`} data-testid="problem">
            <div className={classes.head}>
              <span className={classes.badge(p.level)}>
                {p.level === "error" ? labels.error : labels.warning}
              </span>
              <time dateTime={new Date(p.timeMs).toISOString()}>
                {new Date(p.timeMs).toLocaleString(lang, {
                  dateStyle: "medium",
                  timeStyle: "medium",
                })}
              </time>
            </div>
            <p className={classes.message}>{p.text}</p>
            {p.requestId ? (
              <p className={classes.request}>
                {labels.request} <code>{p.requestId}</code>
              </p>
            ) : null}
          </li>
        ))}
      </ol>
    </>
  );
}
