import { useEffect, useMemo, useRef, useState } from "react";
import {
  readForm,
  refusedErrors,
  SettingsFormMachine,
  type FieldErrors,
  type FormSpec,
  type FormState,
  type RunSave,
} from "./settings-form.js";

export type { FieldRule, FieldRules, Parsed } from "./settings-form.js";

/**
 * A settings form of any console (rules in ./settings-form.ts): `loaded` is the settings as the
 * console's loader answers them (each new answer is offered to the form), `spec` the fields,
 * rules and save, read anew each render so their words follow the reader's language.
 */
export function useSettingsForm<V, D, E, R = V>(loaded: V | null, spec: FormSpec<V, D, E, R>) {
  const [state, setState] = useState<FormState<V, D>>({
    saved: null,
    draft: null,
    tried: false,
    refusal: null,
  });
  const specRef = useRef(spec);
  specRef.current = spec;
  const machineRef = useRef<SettingsFormMachine<V, D, E, R> | null>(null);
  machineRef.current ??= new SettingsFormMachine<V, D, E, R>({
    spec: () => specRef.current,
    publish: setState,
  });
  const machine = machineRef.current;
  useEffect(() => {
    if (loaded !== null) machine.offer(loaded);
  }, [loaded, machine]);
  // The same functions on every render: a console may hand them to an effect's dependencies.
  const actions = useMemo(
    () => ({
      edit: (patch: Partial<D>) => machine.edit(patch),
      set: <K extends keyof D>(key: K, draft: D[K]) =>
        machine.edit({ [key]: draft } as unknown as Partial<D>),
      reset: () => machine.reset(),
      refillNext: () => machine.refillNext(),
      merge: (values: Partial<V>) => machine.merge(values),
      submit: (run?: RunSave<R>) => machine.submit(run),
    }),
    [machine],
  );
  const { saved, draft, tried, refusal } = state;
  if (saved === null || draft === null) return { ready: false as const, ...actions };
  const reading = readForm(spec, saved, draft);
  const refused = refusedErrors(spec, refusal);
  const errors: FieldErrors<D, E> = spec.live || tried ? { ...reading.problems } : {};
  for (const [key, error] of Object.entries(refused) as Array<[keyof D & string, E]>)
    errors[key] ??= error;
  return {
    ready: true as const,
    saved,
    draft,
    tried,
    ...reading,
    /** The problems shown now, and the refusal's words beside the fields it names. */
    errors,
    /** Fields a refusal of the service names, not edited since. */
    refused: Object.keys(refused) as Array<keyof D & string>,
    invalid: Object.keys(reading.problems).length > 0,
    ...actions,
  };
}

/** Closing or reloading the page while a form has unsaved edits asks first. */
export function useWarnOnLeave(dirty: boolean): void {
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [dirty]);
}
