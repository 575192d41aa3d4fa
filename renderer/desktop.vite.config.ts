import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const root = dirname(fileURLToPath(import.meta.url));

/**
 * The Desktop screen, built apart from the services' pages (renderer/dist) into
 * renderer/dist-desktop: the app serves it as app://gatehouse/desktop.html, and no service
 * ever has it to serve to the LAN.
 */
export default defineConfig({
  root,
  base: "./",
  // The services' icons and manifest (renderer/public) are theirs; this page needs none.
  publicDir: false,
  plugins: [react()],
  build: {
    outDir: resolve(root, "dist-desktop"),
    emptyOutDir: true,
    // Strict CSP (script-src 'self'): no inline module preload polyfill.
    modulePreload: { polyfill: false },
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    rollupOptions: { input: { desktop: resolve(root, "desktop.html") } },
  },
});
