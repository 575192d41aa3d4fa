import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrate, openDatabase } from "../../db/open.js";
import { ensurePrivateDir, privateDatabaseFile, tightenTreeSync } from "../../private-files.js";
import { AccountsRepo } from "./accounts-repo.js";
import { SqlProxyStore } from "./proxy-store.js";

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), "..", "migrations");

/** The proxy service's storage: its folder and the repositories over its one database. */
export interface ProxyStorage {
  /** `<dataDir>/proxy` */
  dir: string;
  /** Settings, subscriptions with their snapshots, rules; closing it closes the database. */
  repos: SqlProxyStore;
  /** The administrator, sessions and sign-in failures. */
  accounts: AccountsRepo;
}

/** Opens (creating and migrating when needed) the storage under `<dataDir>/proxy`. */
export function openProxyStorage(dataDir: string): ProxyStorage {
  const dir = join(dataDir, "proxy");
  // 0700/0600 on every start, for the whole (small) tree: database, setup token, snapshots
  // and the core's home with its configuration, secret and provider files.
  tightenTreeSync(ensurePrivateDir(dir));
  const db = openDatabase(privateDatabaseFile(join(dir, "proxy.db")));
  migrate(db, MIGRATIONS);
  return { dir, repos: new SqlProxyStore(db, dir), accounts: new AccountsRepo(db) };
}
