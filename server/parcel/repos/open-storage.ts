import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrate, openDatabase } from "../../db/open.js";
import { privateDatabaseFile } from "../../private-files.js";
import { createRepos, type ParcelRepos } from "./index.js";

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), "..", "migrations");

/** The parcel service's repositories over its one database, and how to close it. */
export interface ParcelStorage {
  repos: ParcelRepos;
  /** Closes the database: no repository may be used after it. */
  close(): void;
}

/** Opens (creating and migrating when needed) `<dir>/parcel.db` (mode 0600). */
export function openParcelStorage(dir: string): ParcelStorage {
  const db = openDatabase(privateDatabaseFile(join(dir, "parcel.db")));
  migrate(db, MIGRATIONS);
  return { repos: createRepos(db), close: () => db.close() };
}
