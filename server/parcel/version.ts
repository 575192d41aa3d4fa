// The version comes from package.json (server/version.ts); kept here for the parcel modules
// that import it from their own folder.
export { VERSION } from "../version.js";
