import { useEffect, useState, type FormEvent } from "react";
import type { NetworkReport, Settings } from "../../../server/contract/proxy.js";
import { PROXY_API } from "../../../server/contract/proxy-api.js";
import { api } from "../api.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { useCoreAction } from "../core/core-failure.js";
import { PROBATION_STARTED, SETTINGS_CHANGED } from "../shell/probation.js";
import { sayError, useLoad, type Say } from "../parts/ui.js";
import {
  fromDraft,
  refusedField,
  settingsProblems,
  splitAddress,
  toDraft,
  type Problems,
  type SettingsDraft,
} from "./settings-check.js";

/** The service's refusal of one field (a port another program holds), said beside that field. */
interface Refusal {
  field: keyof Settings;
  say: Say;
}

/** PUT /settings; a change that can cut the operator off comes back on trial (probation). */
async function putSettings(draft: SettingsDraft): Promise<{ saved: Settings; onTrial: boolean }> {
  const res = await api.raw("PUT /settings", { body: fromDraft(draft) });
  const onTrial = res.headers.get("X-Gatehouse-Probation") !== null;
  const saved = PROXY_API["PUT /settings"].responses[200].schema.parse(await res.json());
  return { saved, onTrial };
}

/** The settings as the service holds them, and the draft being edited (null until loaded). */
function useDraft() {
  const loaded = useLoad(() => api("GET /settings"));
  const [draft, setDraft] = useState<SettingsDraft | null>(null);
  useEffect(() => {
    if (loaded.data && !draft) setDraft(toDraft(loaded.data));
  }, [loaded.data, draft]);
  // A change on probation was kept, undone or rolled back: show what the service holds now.
  const { reload } = loaded;
  useEffect(() => {
    const onChanged = () => void reload().then(() => setDraft(null));
    window.addEventListener(SETTINGS_CHANGED, onChanged);
    return () => window.removeEventListener(SETTINGS_CHANGED, onChanged);
  }, [reload]);
  return { loaded, draft, setDraft };
}

/** Whether the draft differs from what the service holds: only then is there anything to discard. */
function isEdited(draft: SettingsDraft, saved: Settings | null): boolean {
  const current = fromDraft(draft);
  return (
    saved !== null &&
    (Object.keys(saved) as Array<keyof Settings>).some((k) => current[k] !== saved[k])
  );
}

type Draft = ReturnType<typeof useDraft>;
type Loaded = Draft["loaded"];

/** Everything a save or an edit changes besides the draft itself. */
interface FormState {
  draft: SettingsDraft;
  setDraft(d: SettingsDraft | null): void;
  loaded: Loaded;
  setTried(tried: boolean): void;
  refused: Refusal | null;
  setRefused(r: Refusal | null): void;
}

/** Puts an interface in the draft, offering its own address and network (still editable). */
function pickInterface(s: FormState, interfaces: NetworkReport["interfaces"], name: string) {
  const iface = interfaces.find((i) => i.name === name);
  const first = iface?.addresses.map(splitAddress).find((a) => a !== null);
  if (s.refused && ["interface", "lanIP", "lanCIDR"].includes(s.refused.field)) s.setRefused(null);
  const { draft } = s;
  s.setDraft({
    ...draft,
    interface: name,
    lanIP: first && !String(draft.lanIP) ? first.ip : draft.lanIP,
    lanCIDR: first && !String(draft.lanCIDR) ? first.network : draft.lanCIDR,
  });
}

/**
 * Saves the draft: a refusal naming a field is said beside it; a change on trial starts the
 * confirm-or-revert banner instead of saying "saved". Resolves to whether it went on trial.
 */
async function saveDraft(s: FormState): Promise<boolean> {
  const { saved, onTrial } = await putSettings(s.draft).catch((err: unknown) => {
    const field = refusedField(err);
    if (field) s.setRefused({ field, say: sayError(err) });
    throw err;
  });
  s.setDraft(toDraft(saved));
  s.setTried(false);
  await s.loaded.reload();
  if (onTrial) window.dispatchEvent(new Event(PROBATION_STARTED));
  return onTrial;
}

/**
 * The Settings screen's state: the draft, its problems (shown once a save was tried), the
 * service's refusal of a field (said beside it until that field changes) and the save, which
 * reloads the core and so may fail with the core's words (shown folded).
 */
export function useSettingsForm() {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const { loaded, draft, setDraft } = useDraft();
  const network = useLoad(() => api("GET /system/network"));
  const nodes = useLoad(() => api("GET /nodes"));
  const [tried, setTried] = useState(false);
  const [refused, setRefused] = useState<Refusal | null>(null);
  const save = useCoreAction();
  if (!draft) return { ready: false as const, loaded };

  const state: FormState = { draft, setDraft, loaded, setTried, refused, setRefused };
  const ours = network.data?.gatehousePorts ?? [];
  const problems: Problems = tried ? settingsProblems(draft, t, lang, ours) : {};
  if (refused && !problems[refused.field]) problems[refused.field] = refused.say(t);
  const actions = {
    set(k: keyof Settings, v: string | boolean) {
      if (refused?.field === k) setRefused(null);
      setDraft({ ...draft, [k]: v });
    },
    pickInterface: (name: string) => pickInterface(state, network.data?.interfaces ?? [], name),
    async submit(e: FormEvent) {
      e.preventDefault();
      setTried(true);
      if (Object.keys(settingsProblems(draft, t, lang, ours)).length > 0) return;
      setRefused(null);
      await save.run(
        () => saveDraft(state),
        (onTrial) => (onTrial ? "" : t("set.saved")),
      );
    },
    revert() {
      if (!loaded.data) return;
      setDraft(toDraft(loaded.data));
      setTried(false);
      setRefused(null);
      save.clear();
    },
  };
  const edited = isEdited(draft, loaded.data);
  return {
    ready: true as const,
    draft,
    problems,
    ours,
    tried,
    refused,
    edited,
    save,
    network,
    nodes,
    ...actions,
  };
}

export type SettingsForm = Extract<ReturnType<typeof useSettingsForm>, { ready: true }>;
