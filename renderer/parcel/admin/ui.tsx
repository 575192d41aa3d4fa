import { AlertText, useActionState, type AlertKind } from "../../shared/ui/action.js";
import {
  useCallback,
  useEffect,
  useId,
  useRef,
  useState,
  type ComponentProps,
  type ReactNode,
} from "react";
import { Field as SharedField } from "../../shared/field.js";
import { Card as SharedCard } from "../../shared/ui/card.js";
import { useLoad as useSharedLoad } from "../../shared/ui/use-load.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import type { ParcelState } from "../../../server/contract/parcel-views.js";
import { uiDict } from "../ui/i18n.js";
import { errorText } from "./error-text.js";
import { formatCount } from "./format.js";
import { useA, type AdminKey } from "./i18n.js";

export { countText, formatCount, formatTime } from "./format.js";

/** A translated errorText bound to the current language. */
export function useErrorText(): (err: unknown) => string {
  const t = useA();
  const ui = useT(uiDict);
  const lang = useApp((s) => s.lang);
  return useCallback((err: unknown) => errorText(err, t, ui, lang), [t, ui, lang]);
}

export interface Loaded<T> {
  data: T | null;
  error: string;
  loading: boolean;
  reload(): void;
}

/**
 * Loads whenever `key` changes through the pages' one loader (renderer/shared/ui/use-load.ts):
 * the previous request is aborted, so a slow old answer never overwrites a newer one, and the
 * last good data stays while the next one loads.
 */
export function useLoad<T>(key: string, load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const describe = useErrorText();
  const { data, failure, loading, reload } = useSharedLoad(load, { key });
  return { data, error: failure === null ? "" : describe(failure), loading, reload };
}

/** Runs an action, tracking busy state and its error / success text. */
export function useAction() {
  return useActionState(useErrorText());
}

export function Alert({ text, kind = "error" }: { text: string; kind?: AlertKind }) {
  return <AlertText text={text} kind={kind} className="adm-alert" />;
}

/** The one form field of every page (renderer/shared/field.tsx), in the admin's look. */
export function Field(props: Omit<ComponentProps<typeof SharedField>, "look">) {
  return <SharedField {...props} look="adm-field" />;
}

/** The pages' one card (renderer/shared/ui/card.tsx), in the admin's look. */
export function Card(
  props: Omit<ComponentProps<typeof SharedCard>, "className"> & { className?: string },
) {
  return <SharedCard {...props} className={`adm-card ${props.className ?? ""}`.trim()} />;
}

const STATE_KIND: Record<ParcelState, string> = {
  uploading: "info",
  published: "good",
  review: "fair",
  expired: "muted",
  exhausted: "muted",
  revoked: "bad",
};

export function StateBadge({ state }: { state: ParcelState }) {
  const t = useA();
  return <span className={`adm-badge adm-badge-${STATE_KIND[state]}`}>{t(`state.${state}`)}</span>;
}

/** The rows-per-page choice of a list. */
export function PageSizeSelect({
  value,
  sizes,
  onChange,
}: {
  value: number;
  sizes: readonly number[];
  onChange(size: number): void;
}) {
  const t = useA();
  return (
    <label>
      <span className="adm-label">{t("common.pageSize")}</span>
      <select value={value} onChange={(e) => onChange(Number(e.target.value))}>
        {sizes.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </label>
  );
}

/** "N things match" of a list, announced as a status; "loading" before the first answer. */
export function MatchCount({
  loading,
  total,
  text,
}: {
  loading: boolean;
  total: number | undefined;
  /** A counting sentence with {total}. */
  text: AdminKey;
}) {
  const t = useA();
  const lang = useApp((s) => s.lang);
  if (total === undefined) return loading ? t("common.loading") : "";
  return t(text, { total: formatCount(total, lang) });
}

/** Page N of M with previous / next and a direct page input. */
export function Pager({
  page,
  pages,
  total,
  onPage,
  label,
}: {
  page: number;
  pages: number;
  total: number;
  onPage(page: number): void;
  label: string;
}) {
  const t = useA();
  const lang = useApp((s) => s.lang);
  const [draft, setDraft] = useState(String(page));
  useEffect(() => setDraft(String(page)), [page]);
  const go = () => {
    const n = Number(draft);
    if (Number.isInteger(n) && n >= 1 && n <= pages && n !== page) onPage(n);
    else setDraft(String(page));
  };
  return (
    <nav className="adm-pager" aria-label={label}>
      <button type="button" onClick={() => onPage(1)} disabled={page <= 1}>
        <span aria-hidden="true">«</span>
        <span className="sr-only">{t("pager.first")}</span>
      </button>
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        {t("pager.prev")}
      </button>
      <span className="adm-pager-where">
        <label>
          <span className="sr-only">{t("pager.page")}</span>
          <input
            type="number"
            inputMode="numeric"
            min={1}
            max={pages}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onBlur={go}
            onKeyDown={(e) => {
              if (e.key === "Enter") go();
            }}
          />
        </label>
        <span>{t("pager.of", { pages })}</span>
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= pages}>
        {t("pager.next")}
      </button>
      <button type="button" onClick={() => onPage(pages)} disabled={page >= pages}>
        <span aria-hidden="true">»</span>
        <span className="sr-only">{t("pager.last")}</span>
      </button>
      <span className="muted adm-pager-total" data-testid="pager-total">
        {t("pager.total", { total: formatCount(total, lang) })}
      </span>
    </nav>
  );
}

/**
 * A modal question (native <dialog>: focus stays inside, Escape cancels). `ask` resolves
 * true when the administrator confirms.
 */
export function useConfirm(): {
  ask(text: string, confirmLabel: string): Promise<boolean>;
  dialog: ReactNode;
} {
  const t = useA();
  const ref = useRef<HTMLDialogElement>(null);
  const resolver = useRef<((ok: boolean) => void) | null>(null);
  const [question, setQuestion] = useState<{ text: string; confirm: string } | null>(null);
  const titleId = useId();
  const finish = (ok: boolean) => {
    resolver.current?.(ok);
    resolver.current = null;
    ref.current?.close();
    setQuestion(null);
  };
  useEffect(() => {
    if (question && ref.current && !ref.current.open) ref.current.showModal();
  }, [question]);
  const ask = useCallback((text: string, confirm: string) => {
    resolver.current?.(false);
    setQuestion({ text, confirm });
    return new Promise<boolean>((resolve) => (resolver.current = resolve));
  }, []);
  const dialog = (
    <dialog
      ref={ref}
      className="adm-dialog"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        finish(false);
      }}
    >
      {question ? (
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault();
            finish(true);
          }}
        >
          <p id={titleId}>{question.text}</p>
          <div className="button-row adm-dialog-actions">
            <button type="button" onClick={() => finish(false)} autoFocus>
              {t("common.cancel")}
            </button>
            <button type="submit" className="danger">
              {question.confirm}
            </button>
          </div>
        </form>
      ) : null}
    </dialog>
  );
  return { ask, dialog };
}

/** A labelled usage bar: green, amber from 75 %, red from 90 %. */
export function UsageBar({
  label,
  used,
  limit,
  text,
}: {
  label: string;
  used: number;
  limit: number;
  text: string;
}) {
  const ratio = limit > 0 ? Math.min(1, used / limit) : used > 0 ? 1 : 0;
  const percent = Math.round(ratio * 1000) / 10;
  const kind = ratio >= 0.9 ? "bad" : ratio >= 0.75 ? "fair" : "good";
  const id = useId();
  return (
    <div className="adm-usage">
      <div className="adm-usage-head">
        <span id={id}>{label}</span>
        <span className="adm-usage-text">{text}</span>
      </div>
      <div
        className={`adm-bar adm-bar-${kind}`}
        role="meter"
        aria-labelledby={id}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent} % · ${text}`}
      >
        <span style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}
