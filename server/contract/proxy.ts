/**
 * The proxy service's wire contract: every request and answer of its `/api/v1`, shared by the
 * service (which parses with it), the console (which takes its types and checks answers with
 * it) and the OpenAPI document.
 */
export * from "./proxy-fields.js";
export * from "./proxy-views.js";
export * from "./proxy-status.js";
export * from "./proxy-auth.js";
export * from "./proxy-system.js";
export * from "./proxy-devices.js";
export * from "./proxy-api.js";
