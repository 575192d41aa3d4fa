// The kinds live with the contract entries that carry them; named here too so the service
// context can import them without importing the route table, whose guards import it back.
export type { ParcelAccess } from "../../contract/access.js";
