import { useThemeEffect as applyTheme } from "../../shared/theme.js";
import { useApp } from "../store.js";

export { cssVar } from "../../shared/theme.js";

/** Applies the console's chosen theme. */
export function useThemeEffect(): void {
  applyTheme(useApp((s) => s.theme));
}
