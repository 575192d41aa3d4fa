import { describe, expect, it } from "vitest";
import {
  readForm,
  refusedErrors,
  SettingsFormMachine,
  type FieldRules,
  type FormSpec,
  type FormState,
} from "../../renderer/shared/ui/settings-form.js";

// The shared settings-form builder on its own: a small form of a port, a name and a switch,
// saved through a fake save that records what it was sent.

interface Values {
  port: number;
  name: string;
  on: boolean;
  /** A member the form does not edit: kept as saved. */
  other: string;
}
interface Drafts {
  port: string;
  name: string;
  on: boolean;
}

const fields: FieldRules<Values, Drafts, string> = {
  port: {
    draft: (v) => String(v),
    parse: (d) => (/^\d+$/.test(d.trim()) ? { value: Number(d) } : { error: "not a port" }),
  },
  name: { draft: (v) => v, parse: (d) => ({ value: d.trim() }) },
  on: { draft: (v) => v, parse: (d) => ({ value: d }) },
};

class Refused extends Error {
  constructor(readonly fields: Partial<Record<keyof Drafts, string>>) {
    super("refused");
  }
}

const SAVED: Values = { port: 80, name: "home", on: false, other: "kept" };

function setup(change: Partial<FormSpec<Values, Drafts, string>> = {}) {
  const sent: Array<{ values: Values; changes: Partial<Values> }> = [];
  let answer: (values: Values) => Promise<Values> = (values) => Promise.resolve(values);
  let edits = 0;
  const spec: FormSpec<Values, Drafts, string> = {
    fields,
    // A switched-on form needs a name.
    rules: (v, bad) => (v.on && !bad("name") && v.name === "" ? { name: "name needed" } : {}),
    send(values, changes) {
      sent.push({ values, changes });
      return answer(values);
    },
    refusal: (err) => (err instanceof Refused ? err.fields : null),
    onEdit: () => edits++,
    ...change,
  };
  const published: Array<FormState<Values, Drafts>> = [];
  const form = new SettingsFormMachine<Values, Drafts, string>({
    spec: () => spec,
    publish: (s) => published.push(s),
  });
  return {
    form,
    sent,
    spec,
    published,
    edits: () => edits,
    answerWith(f: (values: Values) => Promise<Values>) {
      answer = f;
    },
  };
}

describe("the shared settings-form builder", () => {
  it("fills the draft from the first load and reads it back with changes and edits", () => {
    const { form } = setup();
    expect(form.reading()).toBeNull();
    form.offer(SAVED);
    expect(form.current.draft).toEqual({ port: "80", name: "home", on: false });
    expect(form.reading()).toEqual({ values: SAVED, changes: {}, edited: [], problems: {} });

    form.edit({ port: " 80 ", name: "cellar" });
    const r = form.reading();
    expect(r?.changes).toEqual({ name: "cellar" });
    expect(r?.edited).toEqual(["name"]);
    expect(r?.values).toEqual({ ...SAVED, name: "cellar" });
  });

  it("counts an invalid draft as an edit with its problem, and judges rules only on valid fields", () => {
    const { form } = setup();
    form.offer(SAVED);
    form.edit({ port: "eighty", on: true, name: " " });
    const r = form.reading();
    expect(r?.problems).toEqual({ port: "not a port", name: "name needed" });
    expect(r?.edited).toEqual(["port", "name", "on"]);
    expect(r?.changes).toEqual({ name: "", on: true });
    // The invalid port keeps its saved value among the values the rules see.
    expect(r?.values.port).toBe(80);
    // Spaces around a draft are no edit.
    form.edit({ port: "80 ", on: false, name: "home" });
    expect(form.reading()?.edited).toEqual([]);
  });

  it("sends nothing while a field is wrong or nothing changed, unless told to send anyway", async () => {
    const { form, sent } = setup();
    form.offer(SAVED);
    expect(await form.submit()).toBe("unchanged");
    expect(form.current.tried).toBe(true);
    form.edit({ port: "x" });
    expect(await form.submit()).toBe("invalid");
    expect(sent).toEqual([]);

    const always = setup({ sendUnchanged: true });
    always.form.offer(SAVED);
    expect(await always.form.submit()).toBe("sent");
    expect(always.sent).toEqual([{ values: SAVED, changes: {} }]);
  });

  it("saves the values and the changes through the given action; the answer becomes the saved settings", async () => {
    const { form, sent, answerWith } = setup();
    form.offer(SAVED);
    form.edit({ port: "8080" });
    answerWith((values) => Promise.resolve({ ...values, other: "from the service" }));
    const ran: string[] = [];
    const outcome = await form.submit(async (task) => {
      ran.push("before");
      const answer = await task();
      ran.push(`after ${answer.port}`);
    });
    expect(outcome).toBe("sent");
    expect(ran).toEqual(["before", "after 8080"]);
    expect(sent).toEqual([{ values: { ...SAVED, port: 8080 }, changes: { port: 8080 } }]);
    expect(form.current.saved).toEqual({ ...SAVED, port: 8080, other: "from the service" });
    expect(form.current.draft?.port).toBe("8080");
    expect(form.current.tried).toBe(false);
    expect(form.reading()?.edited).toEqual([]);
  });

  it("says a refusal beside the fields it names until each is edited, and keeps the draft", async () => {
    const { form, spec, answerWith } = setup();
    form.offer(SAVED);
    form.edit({ port: "8080", name: "cellar" });
    answerWith(() => Promise.reject(new Refused({ port: "port in use", name: "name taken" })));
    let failure: unknown = null;
    await form.submit((task) => task().catch((err: unknown) => (failure = err)));
    expect(failure).toBeInstanceOf(Refused);
    expect(form.current.saved).toEqual(SAVED);
    expect(form.current.draft).toEqual({ port: "8080", name: "cellar", on: false });
    expect(refusedErrors(spec, form.current.refusal)).toEqual({
      port: "port in use",
      name: "name taken",
    });
    form.edit({ port: "8081" });
    expect(refusedErrors(spec, form.current.refusal)).toEqual({ name: "name taken" });

    // A failure naming no field is the action's alone.
    answerWith(() => Promise.reject(new Error("offline")));
    await form.submit((task) => task().catch(() => undefined));
    expect(form.current.refusal).toBeNull();
  });

  it("reverts to the saved settings and clears what was tried and refused", async () => {
    const { form, answerWith } = setup();
    form.offer(SAVED);
    form.edit({ port: "8080" });
    answerWith(() => Promise.reject(new Refused({ port: "port in use" })));
    await form.submit((task) => task().catch(() => undefined));
    form.reset();
    expect(form.current).toMatchObject({
      draft: { port: "80", name: "home", on: false },
      tried: false,
      refusal: null,
    });
  });

  it("refills from a new load as told: always, only while untouched, or once after refillNext()", () => {
    const newer = { ...SAVED, name: "newer" };
    for (const [refill, touched, expected] of [
      ["always", true, "newer"],
      ["untouched", false, "newer"],
      ["untouched", true, "typed"],
      ["never", false, "home"],
    ] as const) {
      const { form } = setup({ refill });
      form.offer(SAVED);
      if (touched) form.edit({ name: "typed" });
      form.offer(newer);
      expect(form.current.draft?.name, `${refill} ${touched}`).toBe(expected);
    }
    const { form } = setup({ refill: "never" });
    form.offer(SAVED);
    form.edit({ name: "typed" });
    form.refillNext();
    form.offer(newer);
    expect(form.current.draft?.name).toBe("newer");
    form.offer(SAVED);
    expect(form.current.saved).toEqual(newer);
  });

  it("takes members saved elsewhere without losing the edits, and tells the console of each edit", () => {
    const { form, edits } = setup();
    form.offer(SAVED);
    form.edit({ port: "8080" });
    form.merge({ on: true });
    expect(form.current.saved).toEqual({ ...SAVED, on: true });
    expect(form.current.draft).toEqual({ port: "8080", name: "home", on: true });
    expect(form.reading()?.edited).toEqual(["port"]);
    expect(edits()).toBe(1);
  });

  it("reads a draft alone with the same rules (no machine)", () => {
    const r = readForm({ fields }, SAVED, { port: "81", name: "home", on: true });
    expect(r.changes).toEqual({ port: 81, on: true });
  });
});
