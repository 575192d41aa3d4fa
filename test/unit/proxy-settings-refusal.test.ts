import { describe, expect, it } from "vitest";
import { ApiError } from "../../renderer/proxy/api.js";
import {
  refusedField,
  saidUnderForm,
  SETTINGS_FIELDS,
  type SettingsDraft,
} from "../../renderer/proxy/settings/settings-check.js";
import { en, zh } from "../../renderer/proxy/words.js";
import {
  refusedErrors,
  SettingsFormMachine,
  type FormSpec,
} from "../../renderer/shared/ui/settings-form.js";
import type { Settings } from "../../server/contract/proxy.js";
import { DEFAULT_SETTINGS } from "../../server/proxy/types.js";

// The Settings screen's refusals: a port another program holds is said beside its field, and
// nowhere once that field is edited (not under the form either, about a port no longer there).

const portHeld = (port: number) =>
  new ApiError(409, `port ${port} in use`, {
    code: "settings.port_in_use",
    params: { port, field: "mixedPort" },
  });

describe("Settings refusals", () => {
  it("says a refusal of a field beside it only; other failures under the form", () => {
    expect(refusedField(portHeld(2024))).toBe("mixedPort");
    expect(saidUnderForm(portHeld(2024))).toBe(false);
    // The core's test of the configuration names no field: said under the form.
    expect(saidUnderForm(new ApiError(400, "core", { code: "core.config" }))).toBe(true);
    // A port in use the answer does not place in a field.
    expect(
      saidUnderForm(new ApiError(409, "x", { code: "settings.port_in_use", params: { port: 1 } })),
    ).toBe(true);
    expect(saidUnderForm(new Error("network down"))).toBe(true);
    expect(saidUnderForm(undefined)).toBe(false);
  });

  it("forgets the held port once the field says another, and after the next save", async () => {
    const spec: FormSpec<Settings, SettingsDraft, string> = {
      fields: SETTINGS_FIELDS,
      sendUnchanged: true,
      send: (values) =>
        values.mixedPort === 2024 ? Promise.reject(portHeld(2024)) : Promise.resolve(values),
      refusal: (err) => {
        const field = refusedField(err);
        return field ? { [field]: "held" } : null;
      },
    };
    const form = new SettingsFormMachine({ spec: () => spec, publish: () => undefined });
    form.offer(DEFAULT_SETTINGS);
    form.edit({ mixedPort: "2024" });
    let failure: unknown;
    const run = (task: () => Promise<unknown>) =>
      task().then(
        () => (failure = undefined),
        (err: unknown) => (failure = err),
      );
    await form.submit(run);
    expect(refusedErrors(spec, form.current.refusal)).toEqual({ mixedPort: "held" });
    expect(saidUnderForm(failure)).toBe(false);

    form.edit({ mixedPort: "7891" });
    expect(refusedErrors(spec, form.current.refusal)).toEqual({});
    // The failure is still the last save's, but it is not said under the form.
    expect(failure).toBeInstanceOf(ApiError);
    expect(saidUnderForm(failure)).toBe(false);

    await form.submit(run);
    expect(failure).toBeUndefined();
    expect(form.current.refusal).toBeNull();
    expect(form.current.saved?.mixedPort).toBe(7891);
  });
});

describe("Settings › TUN geodata step", () => {
  it("points to the System screen's “Update geodata”, in both languages", () => {
    expect(en["set.guideGeodata"]).toContain(`“${en["geodata.update"]}”`);
    expect(en["set.guideGeodata"]).toContain(`${en["nav.system"]} screen`);
    expect(zh["set.guideGeodata"]).toContain(`“${zh["geodata.update"]}”`);
    expect(zh["set.guideGeodata"]).toContain(`“${zh["nav.system"]}”页面`);
    for (const words of [en["set.guideGeodata"], zh["set.guideGeodata"]]) {
      expect(words).not.toMatch(/GeoSite\.dat|home folder|主目录/);
    }
  });
});
