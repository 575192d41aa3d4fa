import { DEFAULT_STATUS, type StatusTable } from "../domain-errors.js";

/**
 * How the parcel service's API answers each kind of domain error, decided here once: the usual
 * statuses (a parcel, file or code it does not know is 404).
 */
export const PARCEL_STATUS: StatusTable = DEFAULT_STATUS;
