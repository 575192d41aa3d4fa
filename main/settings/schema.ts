/**
 * Desktop settings kept with electron-store. The schema and migrations live here, apart from
 * `electron`, so tests can load them with `conf` (which electron-store wraps).
 */
export interface DesktopSettings {
  language: "system" | "en" | "zh-CN";
  theme: "system" | "light" | "dark";
  parcelPort: number;
  proxyPort: number;
  host: string;
  startMinimized: boolean;
  closeToTray: boolean;
  window: { width: number; height: number; x?: number; y?: number; maximized: boolean };
}

export const DESKTOP_DEFAULTS: DesktopSettings = {
  language: "system",
  theme: "system",
  parcelPort: 8000,
  proxyPort: 8080,
  host: "0.0.0.0",
  startMinimized: false,
  closeToTray: true,
  window: { width: 1200, height: 820, maximized: false },
};

const port = { type: "integer", minimum: 0, maximum: 65535 } as const;

/** JSON schema (ajv, used by conf/electron-store) of the settings file. */
export const DESKTOP_SCHEMA = {
  language: { type: "string", enum: ["system", "en", "zh-CN"], default: DESKTOP_DEFAULTS.language },
  theme: { type: "string", enum: ["system", "light", "dark"], default: DESKTOP_DEFAULTS.theme },
  parcelPort: { ...port, default: DESKTOP_DEFAULTS.parcelPort },
  proxyPort: { ...port, default: DESKTOP_DEFAULTS.proxyPort },
  host: { type: "string", minLength: 1, maxLength: 64, default: DESKTOP_DEFAULTS.host },
  startMinimized: { type: "boolean", default: DESKTOP_DEFAULTS.startMinimized },
  closeToTray: { type: "boolean", default: DESKTOP_DEFAULTS.closeToTray },
  window: {
    type: "object",
    properties: {
      width: { type: "integer", minimum: 480, maximum: 10000 },
      height: { type: "integer", minimum: 400, maximum: 10000 },
      x: { type: "integer" },
      y: { type: "integer" },
      maximized: { type: "boolean" },
    },
    required: ["width", "height", "maximized"],
    default: DESKTOP_DEFAULTS.window,
  },
} as const;

type Store = {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
  delete(key: string): void;
  has(key: string): boolean;
};

/** Forward-only migrations keyed by the app version that introduced them. */
export const DESKTOP_MIGRATIONS: Record<string, (store: Store) => void> = {
  "0.1.0": (store) => {
    // Early builds stored `lang`; it became `language`.
    if (store.has("lang")) {
      const lang = store.get("lang");
      store.set(
        "language",
        lang === "zh" || lang === "zh-CN" ? "zh-CN" : lang === "en" ? "en" : "system",
      );
      store.delete("lang");
    }
  },
};

export const DESKTOP_STORE_OPTIONS = {
  projectName: "gatehouse",
  projectVersion: "0.1.0",
  configName: "desktop-settings",
  schema: DESKTOP_SCHEMA,
  migrations: DESKTOP_MIGRATIONS,
  clearInvalidConfig: true,
} as const;
