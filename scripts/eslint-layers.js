// The layers of the code base and the direction imports may take between them, checked by
// eslint-plugin-boundaries (eslint.config.js). docs/architecture.md explains the layers.
// A file belongs to the first element whose pattern matches its path from the repository root.
// test/, bench/ and scripts/ belong to no element: they may import anything.

const SERVER = [
  "contract",
  "codes",
  "context",
  "model",
  "http",
  "routes",
  "domain",
  "repos",
  "db",
  "desktop",
  "service-root",
  "server-lib",
];

/** @type {import("eslint-plugin-boundaries").Settings["boundaries/elements"]} */
export const layerElements = [
  // Wire schemas shared by the services and the renderer: zod only.
  { type: "contract", mode: "full", pattern: ["server/contract/**"] },
  // The error and problem code registries; the renderer may import their types.
  {
    type: "codes",
    mode: "full",
    pattern: [
      "server/http/error-codes.ts",
      "server/http/error-registry.ts",
      "server/parcel/error-codes.ts",
      "server/proxy/error-codes.ts",
      "server/problem-codes.ts",
    ],
  },
  // Plain data shapes of the proxy's stored objects, named by every layer.
  { type: "model", mode: "full", pattern: ["server/proxy/types.ts"] },
  // What each service hands its routers and jobs; the layers below may name its types only.
  {
    type: "context",
    mode: "full",
    pattern: ["server/parcel/context.ts", "server/proxy/context.ts"],
  },
  // HTTP plumbing: parsing, guards, sessions, cookies, error answers, OpenAPI.
  {
    type: "http",
    mode: "full",
    pattern: ["server/http/**", "server/parcel/http/**", "server/proxy/auth/guards.ts"],
  },
  { type: "routes", mode: "full", pattern: ["server/parcel/routes/**", "server/proxy/routes/**"] },
  // SQL lives here and only here.
  { type: "repos", mode: "full", pattern: ["server/parcel/repos/**", "server/proxy/store/**"] },
  // The database module: opening a database and running its migrations; only repositories use it.
  { type: "db", mode: "full", pattern: ["server/db/**"] },
  // What the services do, in plain inputs and outputs: no Express, no routers.
  {
    type: "domain",
    mode: "full",
    pattern: [
      "server/parcel/domain/**",
      "server/parcel/storage/**",
      "server/parcel/cleanup.ts",
      "server/parcel/events.ts",
      "server/proxy/domain/**",
      "server/proxy/auth/**",
      "server/proxy/core/**",
      "server/proxy/subscriptions/**",
      "server/proxy/system/**",
    ],
  },
  // The services' side of the desktop app's service host protocol.
  { type: "desktop", mode: "full", pattern: ["server/desktop/**", "server/desktop-entry.ts"] },
  // Composition roots: they build the services from every layer.
  {
    type: "service-root",
    mode: "full",
    pattern: [
      "server/parcel/service.ts",
      "server/proxy/service.ts",
      "server/cli.ts",
      "server/host.ts",
      // Any other file beside a service's folders wires the service together (app, context).
      "server/parcel/*.ts",
      "server/proxy/*.ts",
    ],
  },
  // Small shared pieces every server layer may use (clock, log, domain errors, durations...).
  { type: "server-lib", mode: "full", pattern: ["server/*.ts"] },
  { type: "renderer", mode: "full", pattern: ["renderer/**"] },
  { type: "main", mode: "full", pattern: ["main/**"] },
  { type: "preload", mode: "full", pattern: ["preload/**"] },
];

/** Every element but the repositories and the database module: none of them may reach the database. */
const ABOVE_THE_DATABASE = [
  ...SERVER.filter((t) => t !== "repos" && t !== "db"),
  "renderer",
  "main",
  "preload",
];

// For both rules the last rule that matches an import decides.
export const layerRules = {
  "boundaries/element-types": [
    "error",
    {
      default: "allow",
      rules: [
        {
          from: ["contract"],
          disallow: ["*"],
          message: "server/contract may import only zod and other contract modules",
        },
        { from: ["contract"], allow: ["contract"] },
        {
          from: ["renderer"],
          disallow: ["*"],
          message:
            "the renderer may import only renderer modules and server/contract (types also from the code registries and preload/contract.ts)",
        },
        { from: ["renderer"], allow: ["renderer", "contract"] },
        { from: ["renderer"], allow: ["codes", "preload"], importKind: "type" },
        {
          from: ["repos"],
          disallow: ["routes", "domain", "http", "service-root", "desktop"],
          message:
            "a repository must not import routes, domain or HTTP code (${dependency.source})",
        },
        {
          // Routes and the HTTP layer call the domain; a repository's type may be named.
          from: ["routes", "http"],
          disallow: ["repos"],
          importKind: "value",
          message:
            "routes and the HTTP layer reach repositories through the domain only (${dependency.source})",
        },
        {
          from: ABOVE_THE_DATABASE,
          disallow: ["db"],
          message:
            "only repositories open or name the database; go through a repository (${dependency.source})",
        },
        {
          from: ["repos", "domain"],
          disallow: ["context"],
          importKind: "value",
          message:
            "below the routes, a service context is named by type only (${dependency.source})",
        },
        {
          from: ["domain"],
          disallow: ["routes", "service-root", "desktop"],
          message:
            "domain code must not import routes or the composition root (${dependency.source})",
        },
        {
          // Domain code throws DomainError (server/domain-errors.ts); HttpError, request
          // parsing and guards stay in the HTTP layer.
          from: ["domain"],
          disallow: ["http"],
          message:
            "domain code must not import the HTTP layer; throw a DomainError (${dependency.source})",
        },
        {
          from: ["server-lib", "model"],
          disallow: ["routes", "domain", "repos", "http", "context", "service-root", "desktop"],
          message: "shared server pieces must not import a layer (${dependency.source})",
        },
        {
          from: SERVER,
          disallow: ["main", "preload", "renderer"],
          message: "server code must not import the desktop shell or the renderer",
        },
        { from: ["main"], disallow: ["renderer"], message: "main must not import the renderer" },
      ],
    },
  ],
  "boundaries/external": [
    "error",
    {
      default: "allow",
      rules: [
        {
          from: ["contract"],
          disallow: ["*"],
          message: "server/contract may import only zod (the renderer imports it)",
        },
        { from: ["contract"], allow: ["zod", "zod/*"] },
        {
          from: ["domain"],
          disallow: ["express"],
          message: "domain code takes plain inputs: no Express",
        },
        {
          from: ABOVE_THE_DATABASE,
          disallow: ["better-sqlite3"],
          message: "only repositories and the database module use the database driver",
        },
        {
          from: SERVER,
          disallow: ["electron", "electron-store"],
          message: "server code must run without Electron",
        },
      ],
    },
  ],
};

/** Every file of the domain layer (both services). */
export const domainFiles = layerElements.find((e) => e.type === "domain").pattern;
/** Files a domain pattern matches that belong to an earlier element (the first match decides). */
export const notDomainFiles = layerElements
  .slice(
    0,
    layerElements.findIndex((e) => e.type === "domain"),
  )
  .flatMap((e) => e.pattern)
  .filter((p) => domainFiles.some((d) => p.startsWith(d.replace("/**", "/"))));

/** The parcel service's domain files: they name `server/parcel/domain/ports.ts`, not the context. */
export const parcelDomainFiles = domainFiles.filter((p) => p.startsWith("server/parcel/"));

// `Response` stays allowed: the proxy's core and update code read fetch's answers.
const HTTP_TYPES = "/^(Request|NextFunction|Router|RequestHandler)$/";
const NO_HTTP_VALUES =
  "domain code takes plain values, not a request: the route reads what the domain needs from it";

/** Rules beyond the import direction: what a domain function may take. */
export const domainRules = {
  "no-restricted-syntax": [
    "error",
    {
      selector: `TSTypeReference > Identifier.typeName[name=${HTTP_TYPES}]`,
      message: NO_HTTP_VALUES,
    },
    {
      selector: `TSTypeReference > TSQualifiedName.typeName > Identifier.right[name=${HTTP_TYPES}]`,
      message: NO_HTTP_VALUES,
    },
  ],
};

/** The parcel domain is given its ports; the routes' context (route table, options) stays above it. */
export const parcelDomainRules = {
  "no-restricted-imports": [
    "error",
    {
      patterns: [
        {
          group: ["**/context.js", "**/http/*", "**/routes/*"],
          message:
            "parcel domain code names its ports (server/parcel/domain/ports.ts), not the routes' context or the HTTP layer",
        },
      ],
    },
  ],
};
