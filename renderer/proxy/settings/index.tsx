import { useEffect, useState, type FormEvent } from "react";
import { NetworkReport, Settings } from "../../../server/contract/proxy.js";
import { PROXY_API } from "../../../server/contract/proxy-api.js";
import { api } from "../api.js";
import { useT } from "../i18n.js";
import { useApp } from "../store.js";
import { nodeName } from "../dashboard/index.js";
import { CoreOutput, useCoreAction } from "../core/core-failure.js";
import { PROBATION_STARTED, SETTINGS_CHANGED } from "../shell/probation.js";
import { Alert, Card, Field, Loading, sayError, useLoad, type Say } from "../parts/ui.js";
import { GatewaySteps } from "./gateway-steps.js";
import {
  fromDraft,
  mixedPortHint,
  refusedField,
  settingsProblems,
  splitAddress,
  toDraft,
  type SettingsDraft,
} from "./settings-check.js";

function Check({ ok, label }: { ok: boolean; label: string }) {
  const t = useT();
  return (
    <li className={ok ? "check-ok" : "check-bad"}>
      <span aria-hidden="true">{ok ? "✓" : "✗"}</span>{" "}
      {t("common.labelled", { label, value: ok ? t("set.yes") : t("set.no") })}
    </li>
  );
}

function TunGuidance({ net, tunOn }: { net: NetworkReport; tunOn: boolean }) {
  const t = useT();
  return (
    <div className="guidance" aria-label={t("set.tunGuidance")}>
      <ul className="checks">
        <Check ok={net.ipForward} label={t("set.ipForward")} />
        <Check ok={net.tunDevice} label={t("set.tunDevice")} />
        <Check ok={net.rulesInstalled} label={t("set.rulesInstalled")} />
        <Check ok={net.serviceControl} label={t("set.serviceControl")} />
      </ul>
      {tunOn && !net.ipForward ? <Alert text={t("set.tunWarnForward")} /> : null}
      {tunOn && !net.tunDevice ? <Alert text={t("set.tunWarnDevice")} /> : null}
      <GatewaySteps net={net} />
    </div>
  );
}

export function SettingsScreen() {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const loaded = useLoad(() => api("GET /settings"));
  const network = useLoad(() => api("GET /system/network"));
  const nodes = useLoad(() => api("GET /nodes"));
  const [draft, setDraft] = useState<SettingsDraft | null>(null);
  const [tried, setTried] = useState(false);
  // The service's refusal of one field (a port another program holds), said beside it until
  // that field changes.
  const [refused, setRefused] = useState<{ field: keyof Settings; say: Say } | null>(null);
  // A save reloads the core, which may refuse: its words are shown folded, not in the sentence.
  const save = useCoreAction();

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

  if (!draft) {
    return (
      <Card title={t("set.title")}>
        {loaded.error ? <Alert text={loaded.error} /> : <Loading />}
      </Card>
    );
  }
  const ours = network.data?.gatehousePorts ?? [];
  const problems = tried ? settingsProblems(draft, t, lang, ours) : {};
  // Edits not saved yet: only then is there anything to discard.
  const current = fromDraft(draft);
  const saved = loaded.data;
  const edited =
    saved !== null &&
    (Object.keys(saved) as Array<keyof Settings>).some((k) => current[k] !== saved[k]);
  if (refused && !problems[refused.field]) problems[refused.field] = refused.say(t);
  const set = (k: keyof Settings, v: string | boolean) => {
    if (refused?.field === k) setRefused(null);
    setDraft({ ...draft, [k]: v });
  };
  const text = (k: keyof Settings, label: string, hint?: string, type = "text") => (
    <Field label={label} error={problems[k]} hint={hint}>
      {(p) => (
        <input
          {...p}
          type={type}
          value={String(draft[k])}
          spellCheck={false}
          inputMode={type === "number" ? "numeric" : undefined}
          onChange={(e) => set(k, e.target.value)}
        />
      )}
    </Field>
  );

  const pickInterface = (name: string) => {
    const iface = network.data?.interfaces.find((i) => i.name === name);
    const first = iface?.addresses.map(splitAddress).find((a) => a !== null);
    if (refused && ["interface", "lanIP", "lanCIDR"].includes(refused.field)) setRefused(null);
    // Offer the interface's own address and network; the operator can still edit them.
    setDraft({
      ...draft,
      interface: name,
      lanIP: first && !String(draft.lanIP) ? first.ip : draft.lanIP,
      lanCIDR: first && !String(draft.lanCIDR) ? first.network : draft.lanCIDR,
    });
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (Object.keys(settingsProblems(draft, t, lang, ours)).length > 0) return;
    setRefused(null);
    await save.run(
      async () => {
        let saved: Settings;
        let onTrial = false;
        try {
          const res = await api.raw("PUT /settings", { body: fromDraft(draft) });
          onTrial = res.headers.get("X-Gatehouse-Probation") !== null;
          saved = PROXY_API["PUT /settings"].responses[200].schema.parse(await res.json());
        } catch (err) {
          const field = refusedField(err);
          if (field) setRefused({ field, say: sayError(err) });
          throw err;
        }
        setDraft(toDraft(saved));
        setTried(false);
        await loaded.reload();
        // Saved on trial: the banner asks to keep them, so "saved" would say too much.
        if (onTrial) window.dispatchEvent(new Event(PROBATION_STARTED));
        return onTrial;
      },
      (onTrial) => (onTrial ? "" : t("set.saved")),
    );
  };

  const ifaces = network.data?.interfaces ?? [];
  return (
    <form onSubmit={submit} noValidate className="grid">
      <Card title={t("set.proxyTitle")}>
        <label className="check">
          <input
            type="checkbox"
            checked={draft.proxyEnabled === true}
            onChange={(e) => set("proxyEnabled", e.target.checked)}
          />
          {t("set.proxyEnabled")}
        </label>
        <p className="muted">{t("set.proxyEnabledHint")}</p>
        <div className="form-grid">
          <Field label={t("set.selectionMode")}>
            {(p) => (
              <select
                {...p}
                value={String(draft.selectionMode)}
                onChange={(e) => set("selectionMode", e.target.value)}
              >
                <option value="auto">{t("nodes.auto")}</option>
                <option value="manual">{t("nodes.manual")}</option>
              </select>
            )}
          </Field>
          <Field label={t("set.selectedNode")} hint={t("set.selectedNodeHint")}>
            {(p) => (
              <select
                {...p}
                value={String(draft.selectedNode)}
                onChange={(e) => set("selectedNode", e.target.value)}
              >
                <option value="">{t("set.noNode")}</option>
                {String(draft.selectedNode) &&
                !nodes.data?.some((n) => n.id === draft.selectedNode) ? (
                  <option value={String(draft.selectedNode)}>
                    {t("set.nodeGone", { name: nodeName(String(draft.selectedNode)) })}
                  </option>
                ) : null}
                {nodes.data?.map((n) => (
                  <option key={n.id} value={n.id}>
                    {n.subscriptionName} / {n.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {text("mixedPort", t("set.mixedPort"), mixedPortHint(ours, t), "number")}
          {text("dnsPort", t("set.dnsPort"), t("set.dnsPortHint"), "number")}
          {text("testURL", t("set.testURL"))}
          {text("testTimeoutMS", t("set.testTimeout"), t("set.testTimeoutHint"), "number")}
        </div>
      </Card>
      <Card title={t("set.tunTitle")}>
        <label className="check">
          <input
            type="checkbox"
            checked={draft.tunEnabled === true}
            onChange={(e) => set("tunEnabled", e.target.checked)}
          />
          {t("set.tunEnabled")}
        </label>
        <p className="muted">{t("set.tunHint")}</p>
        {network.data ? <TunGuidance net={network.data} tunOn={draft.tunEnabled === true} /> : null}
        <Alert text={network.error ? t("set.networkError", { error: network.error }) : ""} />
        <div className="form-grid">
          <Field label={t("set.interface")} error={problems.interface}>
            {(p) => (
              <select
                {...p}
                value={String(draft.interface)}
                onChange={(e) => pickInterface(e.target.value)}
              >
                <option value="">{t("set.noInterface")}</option>
                {String(draft.interface) && !ifaces.some((i) => i.name === draft.interface) ? (
                  <option value={String(draft.interface)}>
                    {t("set.missingInterface", { name: String(draft.interface) })}
                  </option>
                ) : null}
                {ifaces.map((i) => (
                  <option key={i.name} value={i.name}>
                    {i.name} {i.addresses.join(", ")} {i.up ? "" : `(${t("set.down")})`}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {text("lanIP", t("set.lanIP"), t("set.example", { value: "192.168.1.2" }))}
          {text("lanCIDR", t("set.lanCIDR"), t("set.example", { value: "192.168.1.0/24" }))}
          {text("gateway", t("set.gateway"), t("set.example", { value: "192.168.1.1" }))}
        </div>
      </Card>
      <div className="form-actions sticky-actions">
        <button type="submit" className="primary" disabled={save.busy}>
          {save.busy ? t("common.working") : t("set.save")}
        </button>
        <button
          type="button"
          disabled={!edited}
          onClick={() =>
            loaded.data
              ? (setDraft(toDraft(loaded.data)), setTried(false), setRefused(null), save.clear())
              : undefined
          }
        >
          {t("set.revert")}
        </button>
        {(tried && Object.keys(problems).length > 0) || refused ? (
          <Alert text={t("set.fixFields")} />
        ) : null}
        {/* A refusal shown beside its field is not repeated here. */}
        <Alert text={refused ? "" : save.error} />
        <CoreOutput text={refused ? "" : save.output} t={t} />
        <Alert kind="ok" text={save.done} />
      </div>
    </form>
  );
}
