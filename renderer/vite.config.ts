import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const root = dirname(fileURLToPath(import.meta.url));

/** One page per service origin: the parcel service serves parcel.html, the proxy service proxy.html. */
const pages = ["parcel", "proxy"].filter((name) => existsSync(resolve(root, `${name}.html`)));

export default defineConfig({
  root,
  base: "./",
  plugins: [react()],
  build: {
    outDir: resolve(root, "dist"),
    emptyOutDir: true,
    // Strict CSP (script-src 'self'): no inline module preload polyfill.
    modulePreload: { polyfill: false },
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    rollupOptions: {
      input: Object.fromEntries(pages.map((name) => [name, resolve(root, `${name}.html`)])),
    },
  },
});
