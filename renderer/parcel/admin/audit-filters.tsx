import { useEffect, useState, type FormEvent } from "react";
import { ACTIONS, actionName } from "./audit-words.js";
import {
  localToUnix,
  localToUnixEnd,
  localZone,
  presetRange,
  useFilters,
  type AuditQuery,
  type RangePreset,
} from "./filters.js";
import { useA, type AdminKey } from "./i18n.js";
import { Field } from "./ui.js";

/** Typing settles this long before a text filter runs, as in the parcel search. */
export const TEXT_DELAY_MS = 300;

const PRESETS: Array<[RangePreset, AdminKey]> = [
  ["hour", "audit.lastHour"],
  ["today", "audit.today"],
  ["week", "audit.lastWeek"],
];

type Times = Pick<AuditQuery, "from" | "to">;

/** Why a time range cannot be sent, per field ("" when it can). */
function timeErrors(d: Times, t: ReturnType<typeof useA>): { from: string; to: string } {
  const from = d.from ? localToUnix(d.from) : null;
  const to = d.to ? localToUnixEnd(d.to) : null;
  return {
    from: d.from && from === null ? t("audit.badTime") : "",
    to:
      d.to && to === null
        ? t("audit.badTime")
        : from !== null && to !== null && from > to
          ? t("audit.toBeforeFrom")
          : "",
  };
}

/**
 * What the text and time fields hold: shown as typed, while the filters in force change only
 * once typing settles. Filters changed elsewhere (cleared, or set from a row or another tab)
 * replace what the fields hold, and typed text not yet settled is dropped with it.
 */
function useDrafts() {
  const { audit: f, setAudit } = useFilters();
  const [text, setText] = useState({ source: f.source, target: f.target });
  const [times, setTimes] = useState<Times>({ from: f.from, to: f.to });
  const [followed, setFollowed] = useState({ ...text, ...times });

  // Followed in the render that shows the new filters, not in an effect after it: until the
  // next render the settle effect below would see the old text beside them and schedule that
  // text to be applied, overwriting them if the render came late (a busy machine).
  // (Text that only differs by spaces at its ends is what was applied: left as typed.)
  if (followed.source !== f.source || followed.target !== f.target) {
    setFollowed((old) => ({ ...old, source: f.source, target: f.target }));
    if (text.source.trim() !== f.source || text.target.trim() !== f.target)
      setText({ source: f.source, target: f.target });
  }
  if (followed.from !== f.from || followed.to !== f.to) {
    setFollowed((old) => ({ ...old, from: f.from, to: f.to }));
    if (times.from !== f.from || times.to !== f.to) setTimes({ from: f.from, to: f.to });
  }

  useEffect(() => {
    const source = text.source.trim();
    const target = text.target.trim();
    if (source === f.source && target === f.target) return;
    const timer = setTimeout(() => setAudit({ source, target }), TEXT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, f.source, f.target, setAudit]);

  return { text, setText, times, setTimes };
}

/** A text filter: searched as typed, spelled as is. */
function TextFilter(props: {
  label: string;
  hint: string;
  value: string;
  onChange(value: string): void;
}) {
  return (
    <Field label={props.label} hint={props.hint}>
      {(p) => (
        <input
          {...p}
          type="search"
          value={props.value}
          spellCheck={false}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

/** One end of the time range, in the administrator's zone. */
function TimeFilter(props: {
  label: string;
  hint: string;
  error: string;
  value: string;
  onChange(value: string): void;
}) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint}>
      {(p) => (
        <input
          {...p}
          type="datetime-local"
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

/** The quick ranges, each lit while the range it set is in force. */
function Presets({ setTimes }: { setTimes(times: Times): void }) {
  const t = useA();
  const { audit: f, setAudit } = useFilters();
  return (
    <div className="adm-presets" role="group" aria-label={t("audit.presets")}>
      {PRESETS.map(([preset, label]) => {
        const active = f.preset === preset;
        return (
          <button
            key={preset}
            type="button"
            className="small"
            aria-pressed={active}
            onClick={() => {
              const range = presetRange(preset);
              setTimes(range);
              setAudit({ ...range, preset });
            }}
          >
            {t(label)}
          </button>
        );
      })}
    </div>
  );
}

/**
 * The audit filters apply as they change, like the parcel filters: a choice or a complete
 * valid time at once, typed text once it settles (Enter applies it at once). A quick range
 * stays highlighted only while the range it set is the one in force.
 */
export function AuditFilters() {
  const t = useA();
  const { audit: f, setAudit } = useFilters();
  const { text, setText, times, setTimes } = useDrafts();
  const errors = timeErrors(times, t);

  const setTime = (patch: Partial<Times>) => {
    const next = { ...times, ...patch };
    setTimes(next);
    const bad = timeErrors(next, t);
    // A half-typed or reversed range waits; the list keeps the last valid one meanwhile.
    if (!bad.from && !bad.to) setAudit({ ...next, preset: "" });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAudit({ source: text.source.trim(), target: text.target.trim() });
  };
  const clear = () => {
    setText({ source: "", target: "" });
    setTimes({ from: "", to: "" });
    setAudit({ action: "", source: "", target: "", from: "", to: "", preset: "" });
  };
  const zone = localZone();
  return (
    <form
      className="adm-audit-filters"
      onSubmit={submit}
      noValidate
      role="search"
      aria-label={t("audit.filters")}
    >
      <Field label={t("audit.action")}>
        {(p) => (
          <select {...p} value={f.action} onChange={(e) => setAudit({ action: e.target.value })}>
            <option value="">{t("audit.anyAction")}</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a} title={a}>
                {actionName(a, t)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <TextFilter
        label={t("audit.source")}
        hint={t("audit.sourceHint")}
        value={text.source}
        onChange={(source) => setText({ ...text, source })}
      />
      <TextFilter
        label={t("audit.target")}
        hint={t("audit.targetHint")}
        value={text.target}
        onChange={(target) => setText({ ...text, target })}
      />
      <TimeFilter
        label={t("audit.from")}
        error={errors.from}
        hint={zone ? t("audit.zone", { zone }) : ""}
        value={times.from}
        onChange={(from) => setTime({ from })}
      />
      <TimeFilter
        label={t("audit.to")}
        error={errors.to}
        hint={t("audit.toHint")}
        value={times.to}
        onChange={(to) => setTime({ to })}
      />
      <div className="adm-form-actions">
        <Presets setTimes={setTimes} />
        <button type="button" onClick={clear}>
          {t("audit.clear")}
        </button>
      </div>
    </form>
  );
}
