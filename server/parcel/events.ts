/**
 * What the parcel service tells whoever hosts it (the desktop app turns these into
 * notifications). Fired after the fact is recorded; a listener never changes the answer.
 */
export type ParcelEvent =
  | {
      kind: "parcel.picked_up";
      parcelId: string;
      /** The file's name; null when the whole parcel was taken as one ZIP. */
      file: string | null;
      /** How many files the download held (1 for a single file). */
      files: number;
      /** The recipient's IP address. */
      from: string;
      /** ms since the epoch, from the service's clock. */
      at: number;
    }
  | {
      /** A device sent files to the inbox (the operator saves them and is told). */
      kind: "inbox.delivered";
      parcelId: string;
      /** Names of the parcel's files. */
      files: string[];
      /** The sender's IP address. */
      from: string;
      /** ms since the epoch, from the service's clock. */
      at: number;
    }
  | {
      kind: "upload.finished";
      parcelId: string;
      /** Names of the parcel's files. */
      files: string[];
      /** ms since the epoch, from the service's clock. */
      at: number;
    };

export type ParcelEventListener = (event: ParcelEvent) => void;
