import { app, safeStorage } from "electron";
import Store from "electron-store";
import { join } from "node:path";
import type { SecretStoreStatus } from "../../preload/contract.js";
import { chooseSecretStore, unavailableStore, type SecretStoreChoice } from "../secrets/choose.js";
import { loadKeyring, type SecretStore } from "../secrets/keychain.js";
import type { SettingsRepair } from "../settings/repair.js";
import type { DesktopSettings } from "../settings/schema.js";
import {
  openDesktopSettings,
  type DesktopStoreOptions,
  type SettingsStore,
} from "../settings/store.js";
import { bundledCorePath } from "../settings/services-args.js";

/** The Electron calls behind the desktop's start: settings, secrets, the bundled core. */

/** The settings through electron-store in the user-data folder, repaired key by key. */
export function openSettings(onRepair: (repair: SettingsRepair) => void): SettingsStore {
  return openDesktopSettings(
    (o: DesktopStoreOptions) =>
      new Store<DesktopSettings>(
        o as unknown as ConstructorParameters<typeof Store<DesktopSettings>>[0],
      ),
    app.getPath("userData"),
    { onRepair },
  ).store;
}

/** Where secrets go (keychain, safeStorage file, or nowhere), and what the pages are told. */
export function openSecrets(): {
  choice: SecretStoreChoice;
  secrets: SecretStore;
  status: SecretStoreStatus;
} {
  const choice = chooseSecretStore({
    keyring: loadKeyring(),
    safeStorage,
    fallbackFile: join(app.getPath("userData"), "secrets.json"),
  });
  if (choice.ok && choice.kind === "encrypted-file")
    console.warn(`No keychain (${choice.reason}); secrets are kept encrypted in ${choice.file}`);
  const status: SecretStoreStatus = !choice.ok
    ? { kind: "refused", code: choice.code, message: choice.message }
    : choice.kind === "encrypted-file"
      ? { kind: choice.kind, cause: choice.cause }
      : { kind: choice.kind };
  return { choice, secrets: choice.ok ? choice.store : unavailableStore(choice), status };
}

/** The core shipped beside the app (<resources>/core, outside the asar), or null. */
export function bundledCore(): string | null {
  return bundledCorePath({
    packaged: app.isPackaged,
    base: app.isPackaged ? process.resourcesPath : app.getAppPath(),
  });
}
