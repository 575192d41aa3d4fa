import { describe, expect, it } from "vitest";
import { DESKTOP_DEFAULTS } from "../../main/settings/schema.js";
import type { DesktopSettingsResult, DesktopSettingsView } from "../../preload/contract.js";
import {
  desktopFormSpec,
  fieldErrors,
  SettingsRefused,
  type Draft,
} from "../../renderer/parcel/desktop/settings-draft.js";
import type { DesktopKey } from "../../renderer/parcel/desktop/i18n.js";
import {
  refusedErrors,
  SettingsFormMachine,
  type FormState,
} from "../../renderer/shared/ui/settings-form.js";

// The desktop settings form's fields and save in the shared builder, saving through a fake
// `settings.set` that records each patch and answers as the desktop would.

const SAVED: DesktopSettingsView = { ...DESKTOP_DEFAULTS, entries: ["eth0"] };

function setup(answer: (patch: Partial<DesktopSettingsView>) => DesktopSettingsResult) {
  const sent: Array<Partial<DesktopSettingsView>> = [];
  const spec = desktopFormSpec((patch) => {
    sent.push(patch);
    return Promise.resolve(answer(patch));
  });
  const published: Array<FormState<DesktopSettingsView, Draft>> = [];
  const form = new SettingsFormMachine({ spec: () => spec, publish: (s) => published.push(s) });
  form.offer(SAVED);
  return { form, spec, sent };
}

const stored = (patch: Partial<DesktopSettingsView>): DesktopSettingsResult => ({
  ok: true,
  settings: { ...SAVED, ...patch },
  plan: { restart: "parcelPort" in patch, restartKeys: [], liveKeys: [] },
});

describe("the desktop settings form in the shared builder", () => {
  it("shows ports as text, the entries as a mode and a list, and no core path as empty", () => {
    const { form } = setup(stored);
    expect(form.current.draft).toMatchObject({
      parcelPort: "8000",
      proxyPort: "8080",
      parcelHttpsPort: "8443",
      entries: { mode: "chosen", chosen: ["eth0"] },
      coreBinary: "",
      coreUnit: "gatehouse-mihomo.service",
    });
    form.edit({ entries: { mode: "all", chosen: ["eth0"] } });
    expect(form.reading()?.changes).toEqual({ entries: "all" });
  });

  it("refuses ports that are not ports with the range's words, and sends nothing", async () => {
    const { form, sent } = setup(stored);
    for (const text of ["0", "65536", "80a", "", "123456", "-1"]) {
      form.edit({ parcelPort: text });
      expect(form.reading()?.problems, text).toEqual({ parcelPort: "err_port_range" });
    }
    expect(await form.submit()).toBe("invalid");
    expect(sent).toEqual([]);
    form.edit({ parcelPort: " 65535 " });
    expect(form.reading()?.problems).toEqual({});
    expect(form.reading()?.changes).toEqual({ parcelPort: 65535 });
  });

  it("sends only what changed, trimmed, an empty core path as null; the answer is saved", async () => {
    const { form, sent } = setup(stored);
    expect(await form.submit()).toBe("unchanged");
    form.edit({ coreBinary: "   ", host: " 0.0.0.0 ", closeToTray: false });
    expect(form.reading()?.changes).toEqual({ closeToTray: false });
    form.edit({ coreBinary: " /opt/mihomo ", parcelPort: "8001" });
    let restart: unknown = null;
    await form.submit(async (task) => {
      restart = (await task()).plan.restart;
    });
    expect(sent).toEqual([{ closeToTray: false, coreBinary: "/opt/mihomo", parcelPort: 8001 }]);
    expect(restart).toBe(true);
    expect(form.current.saved).toMatchObject({ parcelPort: 8001, coreBinary: "/opt/mihomo" });
    expect(form.reading()?.edited).toEqual([]);

    // Back to the bundled core: the empty path is sent as null.
    form.edit({ coreBinary: "" });
    await form.submit();
    expect(sent[1]).toEqual({ coreBinary: null });
  });

  it("says the desktop's refusal beside each field it names until that field is edited", async () => {
    const { form, spec } = setup(() => ({
      ok: false,
      errors: [
        { field: "proxyPort", code: "port_clash", message: "" },
        { field: "proxyPort", code: "port_range", message: "" },
        { field: "entries", code: "entries", message: "" },
        { field: "coreUnit", code: "choice", message: "" },
      ],
    }));
    form.edit({ proxyPort: "8000", entries: { mode: "chosen", chosen: [] } });
    let failure: unknown = null;
    expect(await form.submit((task) => task().catch((err: unknown) => (failure = err)))).toBe(
      "sent",
    );
    expect(failure).toBeInstanceOf(SettingsRefused);
    expect(form.current.saved).toEqual(SAVED);
    expect(refusedErrors(spec, form.current.refusal)).toEqual({
      proxyPort: "err_port_clash",
      entries: "err_entries",
      coreUnit: "err_other",
    });
    form.edit({ proxyPort: "8081" });
    expect(refusedErrors(spec, form.current.refusal)).toEqual({
      entries: "err_entries",
      coreUnit: "err_other",
    });
  });

  it("takes language and theme saved by the header's pickers and keeps the edits", () => {
    const { form } = setup(stored);
    form.edit({ proxyPort: "9000" });
    form.merge({ language: "zh-CN", theme: "dark" });
    expect(form.current.draft).toMatchObject({
      language: "zh-CN",
      theme: "dark",
      proxyPort: "9000",
    });
    expect(form.reading()?.changes).toEqual({ proxyPort: 9000 });
  });

  it("names every code of the desktop with words of this page", () => {
    const codes = ["port_range", "port_clash", "port_core", "host_ip", "entries"] as const;
    const words: DesktopKey[] = codes.map(
      (code) => fieldErrors([{ field: "host", code, message: "" }]).host as DesktopKey,
    );
    expect(words).toEqual([
      "err_port_range",
      "err_port_clash",
      "err_port_core",
      "err_host_ip",
      "err_entries",
    ]);
  });
});
