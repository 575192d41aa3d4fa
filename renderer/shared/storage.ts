/** localStorage that never throws (private mode, disabled storage). */
export function stored(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function keep(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // private mode: the choice lasts for this page only
  }
}

export type ThemePref = "system" | "light" | "dark";

export function storedTheme(key: string): ThemePref {
  const v = stored(key);
  return v === "light" || v === "dark" ? v : "system";
}
