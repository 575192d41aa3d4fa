// The pages' words go through the one mechanism the desktop app's main process uses too.
export * from "../../server/contract/i18n.js";
