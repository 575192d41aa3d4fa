/**
 * The one settings-form builder of every console, free of React so its rules are tested alone
 * (the hook is ./use-settings-form.ts). A form is a list of fields, each turning a saved value
 * into the draft a person edits and reading the draft back (its value, or the words of why it
 * is none); rules between fields judge the values as they would be saved. The machine keeps
 * the saved settings, the draft, whether a save was tried and the service's last refusal, and
 * saves through the console's own action.
 */

/** A draft read back: the value it stands for, or the reason it stands for none. */
export type Parsed<V, E> = { value: V } | { error: E };

export interface FieldRule<V, D, E> {
  /** The draft the form shows for a saved value. */
  draft(value: V): D;
  /** The value a draft stands for, or the words of why it is none. */
  parse(draft: D): Parsed<V, E>;
  /** Whether two drafts show the same thing (default: the same, spaces around text aside). */
  sameDraft?(a: D, b: D): boolean;
}

/** The fields of a form by name: each draft member `K` edits the saved member `K`. */
export type FieldRules<V, D, E> = {
  [K in keyof D]: FieldRule<K extends keyof V ? V[K] : never, D[K], E>;
};

export type FieldErrors<D, E> = Partial<Record<keyof D & string, E>>;

export interface FormSpec<V, D, E, R = V> {
  fields: FieldRules<V, D, E>;
  /**
   * Rules between fields on the values as they would be saved (every member, the valid drafts
   * in place); a field whose own draft is wrong (`bad`) is not judged again.
   */
  rules?(values: V, bad: (field: keyof D & string) => boolean): FieldErrors<D, E>;
  /** Shows problems as typed; otherwise only once a save was tried. */
  live?: boolean;
  /** Sends even when nothing changed (a save that re-applies the settings). */
  sendUnchanged?: boolean;
  /**
   * A new load of the settings refills the form: "always", only while nothing is edited
   * ("untouched"), or "never" (only the first load, or after `refillNext()`).
   */
  refill?: "always" | "untouched" | "never";
  /** Saves: every member as it would be, and only those that changed. */
  send(values: V, changes: Partial<V>): Promise<R>;
  /** The settings a save's answer holds (default: the answer itself). */
  savedOf?(answer: R): V;
  /** A refusal's words by the fields it names, or null when it names none (kept as it came). */
  refusal?(err: unknown): FieldErrors<D, E> | null;
  /** Called on every edit (a console clears the last save's words). */
  onEdit?(): void;
}

export interface FormState<V, D> {
  saved: V | null;
  draft: D | null;
  /** A save was tried since the form was last filled: its problems are shown. */
  tried: boolean;
  /** The service's last refusal that named fields, and the fields edited since (said no more). */
  refusal: { err: unknown; cleared: string[] } | null;
}

export interface FormReading<V, D, E> {
  /** Every member as it would be saved: the saved settings with every valid draft in place. */
  values: V;
  /** The valid values that differ from the saved ones: what a partial save sends. */
  changes: Partial<V>;
  /** Fields edited away from their saved value, valid or not (an invalid edit is unsaved too). */
  edited: Array<keyof D & string>;
  /** Each field's own problem, then the rules' (the first problem of a field). */
  problems: FieldErrors<D, E>;
}

/** Whether two values are the same (arrays and objects by their contents). */
export function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** Two drafts compared with the spaces around their text left out. */
function sameTrimmed(a: unknown, b: unknown): boolean {
  const trim = (_k: string, v: unknown) => (typeof v === "string" ? v.trim() : v);
  return JSON.stringify(a, trim) === JSON.stringify(b, trim);
}

function keysOf<D>(fields: object): Array<keyof D & string> {
  return Object.keys(fields) as Array<keyof D & string>;
}

/** Reads a draft against the saved settings: values, changes, edited fields, problems. */
export function readForm<V, D, E>(
  spec: Pick<FormSpec<V, D, E, unknown>, "fields" | "rules">,
  saved: V,
  draft: D,
): FormReading<V, D, E> {
  const values = { ...saved } as Record<string, unknown>;
  const changes: Record<string, unknown> = {};
  const edited: Array<keyof D & string> = [];
  const problems: FieldErrors<D, E> = {};
  for (const key of keysOf<D>(spec.fields)) {
    const rule = spec.fields[key] as FieldRule<unknown, unknown, E>;
    const was = (saved as Record<string, unknown>)[key];
    const r = rule.parse(draft[key]);
    if ("error" in r) {
      problems[key] = r.error;
      const same = rule.sameDraft ?? sameTrimmed;
      if (!same(draft[key], rule.draft(was))) edited.push(key);
      continue;
    }
    values[key] = r.value;
    if (!sameValue(r.value, was)) {
      changes[key] = r.value;
      edited.push(key);
    }
  }
  const ruled = spec.rules?.(values as V, (k) => problems[k] !== undefined) ?? {};
  for (const [key, error] of Object.entries(ruled) as Array<[keyof D & string, E]>)
    problems[key] ??= error;
  return { values: values as V, changes: changes as Partial<V>, edited, problems };
}

/** The draft a form shows for saved settings. */
export function draftOf<V, D, E>(fields: FieldRules<V, D, E>, saved: V): D {
  const out: Record<string, unknown> = {};
  for (const key of keysOf<D>(fields)) {
    const rule = fields[key] as FieldRule<unknown, unknown, E>;
    out[key] = rule.draft((saved as Record<string, unknown>)[key]);
  }
  return out as D;
}

/** Where the outcome of a `submit` stands. */
export type Submitted = "invalid" | "unchanged" | "sent";

/**
 * Runs a save the way a console shows its actions (busy, failure words, done words): it calls
 * `task` and settles when the action has; a failure of `task` is the action's to show.
 */
export type RunSave<R> = (task: () => Promise<R>) => Promise<unknown>;

export interface FormMachineOptions<V, D, E, R> {
  /** The spec as it is now (a console's words follow the reader's language). */
  spec(): FormSpec<V, D, E, R>;
  publish(state: FormState<V, D>): void;
}

const EMPTY = { saved: null, draft: null, tried: false, refusal: null };

export class SettingsFormMachine<V, D, E, R = V> {
  private state: FormState<V, D> = EMPTY;
  /** The next offered load fills the form whatever `refill` says. */
  private hungry = false;

  constructor(private readonly opts: FormMachineOptions<V, D, E, R>) {}

  get current(): FormState<V, D> {
    return this.state;
  }

  /** What the draft reads as now, or null before the settings are loaded. */
  reading(): FormReading<V, D, E> | null {
    const { saved, draft } = this.state;
    return saved && draft ? readForm(this.opts.spec(), saved, draft) : null;
  }

  /** A load of the settings answered: fills the form as the spec's `refill` says. */
  offer(values: V): void {
    const refill = this.opts.spec().refill ?? "never";
    const untouched = (this.reading()?.edited.length ?? 0) === 0;
    const take = this.state.saved === null || this.hungry || refill === "always";
    if (take || (refill === "untouched" && untouched)) {
      this.hungry = false;
      this.fill(values);
    }
  }

  /** Shows these settings as saved, the draft of each and nothing tried. */
  fill(values: V): void {
    const draft = draftOf(this.opts.spec().fields, values);
    this.set({ saved: values, draft, tried: false, refusal: null });
  }

  /** The settings changed elsewhere: the next offered load fills the form, edits or not. */
  refillNext(): void {
    this.hungry = true;
  }

  /** Members saved elsewhere (another control saved them): saved and shown, edits kept. */
  merge(values: Partial<V>): void {
    const { saved, draft } = this.state;
    if (!saved || !draft) return;
    const fields = this.opts.spec().fields as Record<string, FieldRule<unknown, unknown, E>>;
    const next = { ...draft } as Record<string, unknown>;
    for (const [key, value] of Object.entries(values))
      if (fields[key]) next[key] = fields[key].draft(value);
    this.set({ saved: { ...saved, ...values }, draft: next as D });
  }

  /** Edits some fields; a refusal of one of them is said no more. */
  edit(patch: Partial<D>): void {
    const { draft, refusal } = this.state;
    if (!draft) return;
    this.opts.spec().onEdit?.();
    const cleared = refusal ? [...refusal.cleared, ...Object.keys(patch)] : [];
    this.set({
      draft: { ...draft, ...patch },
      refusal: refusal ? { err: refusal.err, cleared } : null,
    });
  }

  /** Back to the saved settings. */
  reset(): void {
    const { saved } = this.state;
    if (!saved) return;
    this.set({ draft: draftOf(this.opts.spec().fields, saved), tried: false, refusal: null });
  }

  /**
   * Saves through `run` when the draft has no problem (and something changed, unless the spec
   * sends unchanged forms): the answer becomes the saved settings; a refusal naming fields is
   * said beside them until each is edited.
   */
  async submit(run: RunSave<R> = (task) => task()): Promise<Submitted> {
    const spec = this.opts.spec();
    const read = this.reading();
    if (!read) return "invalid";
    this.set({ tried: true });
    if (Object.keys(read.problems).length > 0) return "invalid";
    if (!spec.sendUnchanged && Object.keys(read.changes).length === 0) return "unchanged";
    this.set({ refusal: null });
    await run(async () => {
      const answer = await spec.send(read.values, read.changes).catch((err: unknown) => {
        if (spec.refusal?.(err)) this.set({ refusal: { err, cleared: [] } });
        throw err;
      });
      this.fill(spec.savedOf ? spec.savedOf(answer) : (answer as unknown as V));
      return answer;
    });
    return "sent";
  }

  private set(change: Partial<FormState<V, D>>): void {
    this.state = { ...this.state, ...change };
    this.opts.publish(this.state);
  }
}

/** The refusal's words at the fields not edited since, from the failure as it came. */
export function refusedErrors<V, D, E, R>(
  spec: FormSpec<V, D, E, R>,
  refusal: FormState<V, D>["refusal"],
): FieldErrors<D, E> {
  const said = refusal ? (spec.refusal?.(refusal.err) ?? {}) : {};
  const out: FieldErrors<D, E> = {};
  for (const [key, error] of Object.entries(said) as Array<[keyof D & string, E]>)
    if (!refusal?.cleared.includes(key)) out[key] = error;
  return out;
}
