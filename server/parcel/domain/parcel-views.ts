import type { AdminParcelView, ParcelView, RecipientView } from "../../contract/parcel-views.js";
import type { FileRow, ParcelRow } from "../repos/parcels.js";

// The wire views of a stored parcel and its files: the contract's shapes, so a view cannot
// send another shape.

export function parcelView(p: ParcelRow, files: FileRow[]): ParcelView {
  return {
    id: p.id,
    state: p.state,
    files: files.map((f) => ({ id: f.id, name: f.name, size: f.size, state: f.state })),
    created_at: p.created_at,
    sent_at: p.sent_at,
    expires_at: p.expires_at,
    downloads_allowed: p.downloads_allowed,
    downloads_left: p.downloads_left,
    has_password: p.password_hash !== null,
    renew: p.renew === 1,
  };
}

export function adminParcelView(p: ParcelRow, files: FileRow[]): AdminParcelView {
  return {
    ...parcelView(p, files),
    bytes: files.reduce((sum, f) => sum + f.size, 0),
    owner: p.owner_visitor ? "visitor" : "token",
  };
}

export function recipientView(p: ParcelRow, files: FileRow[]): RecipientView {
  return {
    id: p.id,
    files: files.map((f) => ({ id: f.id, name: f.name, size: f.size })),
    expires_at: p.expires_at,
    downloads_left: p.downloads_left,
  };
}

/** Lower-cased file names for the admin `q` search. */
export function searchNames(names: string[]): string {
  return names.map((n) => n.toLowerCase()).join("/");
}
