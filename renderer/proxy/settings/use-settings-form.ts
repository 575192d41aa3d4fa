import { useEffect, type FormEvent } from "react";
import type { NetworkReport, Settings } from "../../../server/contract/proxy.js";
import { PROXY_API } from "../../../server/contract/proxy-api.js";
import { useSettingsForm as useSharedForm } from "../../shared/ui/use-settings-form.js";
import { api } from "../api.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { useCoreAction } from "../core/core-failure.js";
import { PROBATION_STARTED, SETTINGS_CHANGED } from "../shell/probation.js";
import { errorText, useLoad } from "../parts/ui.js";
import {
  refusedField,
  saidUnderForm,
  SETTINGS_FIELDS,
  settingsProblems,
  splitAddress,
  type SettingsDraft,
} from "./settings-check.js";

interface Saved {
  saved: Settings;
  onTrial: boolean;
}

/** PUT /settings; a change that can cut the operator off comes back on trial (probation). */
async function putSettings(values: Settings): Promise<Saved> {
  const res = await api.raw("PUT /settings", { body: values });
  const onTrial = res.headers.get("X-Gatehouse-Probation") !== null;
  const saved = PROXY_API["PUT /settings"].responses[200].schema.parse(await res.json());
  return { saved, onTrial };
}

/** The interface, with its own address and network offered where those are empty. */
function interfacePatch(
  draft: SettingsDraft,
  interfaces: NetworkReport["interfaces"],
  name: string,
): Partial<SettingsDraft> {
  const iface = interfaces.find((i) => i.name === name);
  const first = iface?.addresses.map(splitAddress).find((a) => a !== null);
  return {
    interface: name,
    lanIP: first && !String(draft.lanIP) ? first.ip : draft.lanIP,
    lanCIDR: first && !String(draft.lanCIDR) ? first.network : draft.lanCIDR,
  };
}

/**
 * The Settings screen's state through the shared builder: the draft, its problems (shown once
 * a save was tried), the service's refusal of a field (a port another program holds, said
 * beside it until that field changes) and the save, which sends every member, reloads the core
 * and so may fail with the core's words (shown folded); a change on trial starts the
 * confirm-or-revert banner instead of saying "saved".
 */
export function useSettingsForm() {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const loaded = useLoad(() => api("GET /settings"));
  const network = useLoad(() => api("GET /system/network"));
  const nodes = useLoad(() => api("GET /nodes"));
  const save = useCoreAction();
  const ours = network.data?.gatehousePorts ?? [];
  const form = useSharedForm<Settings, SettingsDraft, string, Saved>(loaded.data, {
    fields: SETTINGS_FIELDS,
    rules: (values) => settingsProblems(values, t, lang, ours),
    sendUnchanged: true,
    send: putSettings,
    savedOf: (answer) => answer.saved,
    refusal(err) {
      const field = refusedField(err);
      return field ? { [field]: errorText(err, t) } : null;
    },
  });
  // A change on probation was kept, undone or rolled back: show what the service holds now.
  const { reload } = loaded;
  const { refillNext } = form;
  useEffect(() => {
    const onChanged = () => {
      refillNext();
      void reload();
    };
    window.addEventListener(SETTINGS_CHANGED, onChanged);
    return () => window.removeEventListener(SETTINGS_CHANGED, onChanged);
  }, [reload, refillNext]);
  if (!form.ready) return { ready: false as const, loaded };

  const actions = {
    set: (k: keyof Settings, v: string | boolean) => form.set(k, v),
    pickInterface: (name: string) =>
      form.edit(interfacePatch(form.draft, network.data?.interfaces ?? [], name)),
    async submit(e: FormEvent) {
      e.preventDefault();
      await form.submit((task) =>
        save.run(
          async () => {
            const { onTrial } = await task();
            await loaded.reload();
            if (onTrial) window.dispatchEvent(new Event(PROBATION_STARTED));
            return onTrial;
          },
          (onTrial) => (onTrial ? "" : t("set.saved")),
        ),
      );
    },
    revert() {
      form.reset();
      save.clear();
    },
  };
  return {
    ready: true as const,
    draft: form.draft,
    problems: form.errors,
    ours,
    tried: form.tried,
    /** A refusal of the service is said beside its field (not repeated below the form). */
    refused: form.refused.length > 0,
    /**
     * The last save's failure said under the form, with the core's own words: none for a
     * refusal of a field, said beside it until that field is edited (then nowhere).
     */
    failure: saidUnderForm(save.failure)
      ? { text: save.error, output: save.output }
      : { text: "", output: "" },
    edited: form.edited.length > 0,
    save,
    network,
    nodes,
    ...actions,
  };
}

export type SettingsForm = Extract<ReturnType<typeof useSettingsForm>, { ready: true }>;
