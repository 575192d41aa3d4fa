import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import boundaries from "eslint-plugin-boundaries";
import {
  domainFiles,
  domainRules,
  layerElements,
  layerRules,
  notDomainFiles,
  parcelDomainFiles,
  parcelDomainRules,
} from "./scripts/eslint-layers.js";
import {
  functionLengthFiles,
  functionLengthRules,
  longFunctionFiles,
} from "./scripts/eslint-function-length.js";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      "dist/",
      "renderer/dist/",
      "renderer/dist-desktop/",
      "release/",
      "artifacts/",
      "test-results/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "warn",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
    },
  },
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
  {
    // The direction of the layers (routes -> domain -> repositories -> database, a contract
    // shared with the renderer, a server that never reaches into the desktop shell): see
    // scripts/eslint-layers.js and docs/architecture.md.
    files: ["server/**/*.{ts,tsx}", "renderer/**/*.{ts,tsx}", "main/**/*.ts", "preload/**/*.ts"],
    plugins: { boundaries },
    settings: {
      "boundaries/root-path": import.meta.dirname,
      "boundaries/elements": layerElements,
      "boundaries/dependency-nodes": ["import", "export", "dynamic-import"],
      "import/resolver": { [`${import.meta.dirname}/scripts/eslint-ts-resolver.cjs`]: {} },
    },
    rules: layerRules,
  },
  // What a domain function may take: plain values, never a request (scripts/eslint-layers.js).
  { files: domainFiles, ignores: notDomainFiles, rules: domainRules },
  { files: parcelDomainFiles, rules: parcelDomainRules },
  // No product function over 80 lines (scripts/eslint-function-length.js).
  { files: functionLengthFiles, ignores: longFunctionFiles, rules: functionLengthRules },
);
