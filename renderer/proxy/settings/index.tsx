import type { NetworkReport, Settings } from "../../../server/contract/proxy.js";
import { useT } from "../i18n.js";
import { nodeName } from "../dashboard/index.js";
import { CoreOutput } from "../core/core-failure.js";
import { Alert, Card, Field, Loading } from "../parts/ui.js";
import { GatewaySteps } from "./gateway-steps.js";
import { mixedPortHint } from "./settings-check.js";
import { useSettingsForm, type SettingsForm } from "./use-settings-form.js";

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

/** A text or number field of the draft, with its problem beside it. */
function TextSetting(props: {
  form: SettingsForm;
  k: keyof Settings;
  label: string;
  hint?: string;
  type?: string;
}) {
  const { form, k, label, hint, type = "text" } = props;
  return (
    <Field label={label} error={form.problems[k]} hint={hint}>
      {(p) => (
        <input
          {...p}
          type={type}
          value={String(form.draft[k])}
          spellCheck={false}
          inputMode={type === "number" ? "numeric" : undefined}
          onChange={(e) => form.set(k, e.target.value)}
        />
      )}
    </Field>
  );
}

function CheckSetting({
  form,
  k,
  label,
}: {
  form: SettingsForm;
  k: keyof Settings;
  label: string;
}) {
  return (
    <label className="check">
      <input
        type="checkbox"
        checked={form.draft[k] === true}
        onChange={(e) => form.set(k, e.target.checked)}
      />
      {label}
    </label>
  );
}

function NodePickers({ form }: { form: SettingsForm }) {
  const t = useT();
  const { draft, nodes } = form;
  return (
    <>
      <Field label={t("set.selectionMode")}>
        {(p) => (
          <select
            {...p}
            value={String(draft.selectionMode)}
            onChange={(e) => form.set("selectionMode", e.target.value)}
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
            onChange={(e) => form.set("selectedNode", e.target.value)}
          >
            <option value="">{t("set.noNode")}</option>
            {String(draft.selectedNode) && !nodes.data?.some((n) => n.id === draft.selectedNode) ? (
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
    </>
  );
}

function ProxyCard({ form }: { form: SettingsForm }) {
  const t = useT();
  return (
    <Card title={t("set.proxyTitle")}>
      <CheckSetting form={form} k="proxyEnabled" label={t("set.proxyEnabled")} />
      <p className="muted">{t("set.proxyEnabledHint")}</p>
      <div className="form-grid">
        <NodePickers form={form} />
        <TextSetting
          form={form}
          k="mixedPort"
          label={t("set.mixedPort")}
          hint={mixedPortHint(form.ours, t)}
          type="number"
        />
        <TextSetting
          form={form}
          k="dnsPort"
          label={t("set.dnsPort")}
          hint={t("set.dnsPortHint")}
          type="number"
        />
        <TextSetting form={form} k="testURL" label={t("set.testURL")} />
        <TextSetting
          form={form}
          k="testTimeoutMS"
          label={t("set.testTimeout")}
          hint={t("set.testTimeoutHint")}
          type="number"
        />
      </div>
    </Card>
  );
}

function InterfacePicker({ form }: { form: SettingsForm }) {
  const t = useT();
  const { draft } = form;
  const ifaces = form.network.data?.interfaces ?? [];
  return (
    <Field label={t("set.interface")} error={form.problems.interface}>
      {(p) => (
        <select
          {...p}
          value={String(draft.interface)}
          onChange={(e) => form.pickInterface(e.target.value)}
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
  );
}

function TunCard({ form }: { form: SettingsForm }) {
  const t = useT();
  const { network } = form;
  const example = (value: string) => t("set.example", { value });
  return (
    <Card title={t("set.tunTitle")}>
      <CheckSetting form={form} k="tunEnabled" label={t("set.tunEnabled")} />
      <p className="muted">{t("set.tunHint")}</p>
      {network.data ? (
        <TunGuidance net={network.data} tunOn={form.draft.tunEnabled === true} />
      ) : null}
      <Alert text={network.error ? t("set.networkError", { error: network.error }) : ""} />
      <div className="form-grid">
        <InterfacePicker form={form} />
        <TextSetting form={form} k="lanIP" label={t("set.lanIP")} hint={example("192.168.1.2")} />
        <TextSetting
          form={form}
          k="lanCIDR"
          label={t("set.lanCIDR")}
          hint={example("192.168.1.0/24")}
        />
        <TextSetting
          form={form}
          k="gateway"
          label={t("set.gateway")}
          hint={example("192.168.1.1")}
        />
      </div>
    </Card>
  );
}

function SaveBar({ form }: { form: SettingsForm }) {
  const t = useT();
  const { save, refused, failure } = form;
  return (
    <div className="form-actions sticky-actions">
      <button type="submit" className="primary" disabled={save.busy}>
        {save.busy ? t("common.working") : t("set.save")}
      </button>
      <button type="button" disabled={!form.edited} onClick={form.revert}>
        {t("set.revert")}
      </button>
      {(form.tried && Object.keys(form.problems).length > 0) || refused ? (
        <Alert text={t("set.fixFields")} />
      ) : null}
      {/* A refusal of a field is said beside it only, and goes with its edit. */}
      <Alert text={failure.text} />
      <CoreOutput text={failure.output} t={t} />
      <Alert kind="ok" text={save.done} />
    </div>
  );
}

export function SettingsScreen() {
  const t = useT();
  const form = useSettingsForm();
  if (!form.ready) {
    return (
      <Card title={t("set.proxyTitle")}>
        {form.loaded.error ? <Alert text={form.loaded.error} /> : <Loading />}
      </Card>
    );
  }
  return (
    <form onSubmit={(e) => void form.submit(e)} noValidate className="grid">
      <ProxyCard form={form} />
      <TunCard form={form} />
      <SaveBar form={form} />
    </form>
  );
}
