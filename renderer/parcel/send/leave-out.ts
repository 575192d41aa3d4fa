import { ApiError } from "../api.js";
import { parcelApi } from "../api-full.js";
import { forgetFile } from "./remembered.js";

/**
 * Leaves one file out of an open upload (`DELETE /uploads/:id/files/:file`): the service
 * removes it and the rest goes on; the page forgets it too, so a reload does not ask for it.
 * A file the service no longer has (404) is left out already.
 */
export async function leaveOut(parcelId: string, fileId: string, token: string): Promise<void> {
  try {
    await parcelApi("DELETE /uploads/:id/files/:file", {
      params: { id: parcelId, file: fileId },
      token,
    });
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404 && err.code === "parcel.file_not_found"))
      throw err;
  }
  forgetFile(parcelId, fileId);
}
