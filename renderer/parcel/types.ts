/** Shapes of the parcel service's answers. Times are Unix seconds. */

export type ParcelState =
  "uploading" | "published" | "expired" | "exhausted" | "revoked" | "review";
export type FileState = "pending" | "ready" | "failed";

export interface ParcelFile {
  id: string;
  name: string;
  size: number;
  state: FileState;
}

export interface Parcel {
  id: string;
  state: ParcelState;
  files: ParcelFile[];
  created_at: number;
  sent_at: number | null;
  expires_at: number;
  downloads_allowed: number;
  downloads_left: number;
  has_password: boolean;
  renew: boolean;
}

export interface AdminParcel extends Parcel {
  bytes: number;
  owner: "visitor" | "token";
}

export interface ShareUrl {
  /** English, for API clients; pages name the entry from the URL (`entryLabel`). */
  label: string;
  url: string;
}

export interface Share {
  code?: string;
  url: string;
  urls: ShareUrl[];
  expires_at: number;
  downloads_left: number;
}

/** The business policy members both the public and the admin policy carry. */
export interface BusinessPolicy {
  uploads_enabled: boolean;
  max_files: number;
  max_file_bytes: number;
  max_parcel_bytes: number;
  default_days: number;
  max_days: number;
  default_downloads: number;
  max_downloads: number;
  require_password: boolean;
  /** Whether a parcel's expiry renews on a complete download unless the sender says. */
  default_renew: boolean;
  code_length: number;
  renewal_mode: "default" | "term";
  renew_days: number;
  renew_cap_days: number;
  daily_upload_bytes: number;
}

export interface PublicPolicy extends BusinessPolicy {
  public_url: string;
  access_urls: string[];
  visitor_expires: number;
}

export interface PickupView {
  id: string;
  files: Array<{ id: string; name: string; size: number }>;
  expires_at: number;
  downloads_left: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
  pages: number;
}
