/**
 * The owner's and the administrator's calls: every entry of the parcel service's contract,
 * each answer checked with the contract's own schema. Loaded by the send, mine and admin pages
 * only (the administrator's own client, which ends the session on a 401, is `admin/session.ts`);
 * the light pages use `api.ts`'s small checks.
 */

import { PARCEL_API } from "../../server/contract/parcel.js";
import { wholeContractApi } from "../shared/contract-api.js";
import { client } from "./api.js";

/** A call of any parcel route, checked with its 2xx schema. */
export const parcelApi = wholeContractApi(client, PARCEL_API);
