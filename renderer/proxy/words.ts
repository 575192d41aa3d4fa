import { shellEn, shellZh } from "./shell/i18n.js";
import { partsEn, partsZh } from "./parts/i18n.js";
import { authEn, authZh } from "./auth/i18n.js";
import { coreEn, coreZh } from "./core/i18n.js";
import { dashboardEn, dashboardZh } from "./dashboard/i18n.js";
import { subscriptionsEn, subscriptionsZh } from "./subscriptions/i18n.js";
import { nodesEn, nodesZh } from "./nodes/i18n.js";
import { rulesEn, rulesZh } from "./rules/i18n.js";
import { settingsEn, settingsZh } from "./settings/i18n.js";
import { connectionsEn, connectionsZh } from "./connections/i18n.js";
import { logsEn, logsZh } from "./logs/i18n.js";
import { devicesEn, devicesZh } from "./devices/i18n.js";
import { systemEn, systemZh } from "./system/i18n.js";

/**
 * The console's words: each area keeps its English and Chinese tables beside its screens
 * (`<area>/i18n.ts`, the Chinese one typed by the English one's keys), merged here into one
 * table per language. A key missing from a Chinese table fails to compile; a key in two areas
 * fails test/unit/proxy-words.test.ts.
 */
export const AREA_WORDS = {
  shell: { en: shellEn, zh: shellZh },
  parts: { en: partsEn, zh: partsZh },
  auth: { en: authEn, zh: authZh },
  core: { en: coreEn, zh: coreZh },
  dashboard: { en: dashboardEn, zh: dashboardZh },
  subscriptions: { en: subscriptionsEn, zh: subscriptionsZh },
  nodes: { en: nodesEn, zh: nodesZh },
  rules: { en: rulesEn, zh: rulesZh },
  settings: { en: settingsEn, zh: settingsZh },
  connections: { en: connectionsEn, zh: connectionsZh },
  logs: { en: logsEn, zh: logsZh },
  devices: { en: devicesEn, zh: devicesZh },
  system: { en: systemEn, zh: systemZh },
} as const;

export const en = {
  ...shellEn,
  ...partsEn,
  ...authEn,
  ...coreEn,
  ...dashboardEn,
  ...subscriptionsEn,
  ...nodesEn,
  ...rulesEn,
  ...settingsEn,
  ...connectionsEn,
  ...logsEn,
  ...devicesEn,
  ...systemEn,
} as const;

export type Key = keyof typeof en;

export const zh: Record<Key, string> = {
  ...shellZh,
  ...partsZh,
  ...authZh,
  ...coreZh,
  ...dashboardZh,
  ...subscriptionsZh,
  ...nodesZh,
  ...rulesZh,
  ...settingsZh,
  ...connectionsZh,
  ...logsZh,
  ...devicesZh,
  ...systemZh,
};
