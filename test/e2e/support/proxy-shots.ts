import type { Page } from "@playwright/test";
import { shootThemes } from "./shots.js";

export { SHOTS_DIR } from "./shots.js";

/** Screenshots of one screen in light and dark (the console follows the system theme). */
export async function shootBothThemes(page: Page, name: string): Promise<void> {
  await shootThemes(page, "proxy", name);
}
