import type { Db } from "../../db/open.js";
import { resolvePage, type PageRequest } from "../../paging.js";
import type { FileRow, ParcelRow, ParcelState } from "./parcels.js";
import { prepared } from "./statements.js";

export interface ParcelFilter {
  q?: string;
  state?: ParcelState;
}

/** One page of the administrator's parcel list, as stored. */
export interface ParcelPage {
  rows: ParcelRow[];
  files: Map<string, FileRow[]>;
  total: number;
  page: number;
  pages: number;
}

/** The administrator's writes to parcels and files (the rules are in domain/admin-parcels.ts). */
export class AdminParcelsRepo {
  private readonly s;

  constructor(private readonly db: Db) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      revoke: p(
        `UPDATE parcels SET state = 'revoked', ended_at = COALESCE(ended_at, ?),
         reserved_bytes = 0 WHERE id = ?`,
      ),
      deleteFile: p("DELETE FROM files WHERE id = ?"),
      setNames: p("UPDATE parcels SET search_names = ?, reserved_bytes = ? WHERE id = ?"),
      reissue: p(
        `UPDATE parcels SET state = 'published', days = ?, expires_at = ?, downloads_allowed = ?,
         downloads_left = ?, wrong_passwords = 0, ended_at = NULL WHERE id = ?`,
      ),
      rows: p("SELECT * FROM parcels WHERE id IN (SELECT value FROM json_each(?))"),
      files: p(
        `SELECT * FROM files WHERE parcel_id IN (SELECT value FROM json_each(?))
         ORDER BY parcel_id, idx`,
      ),
    };
  }

  /**
   * `GET /admin/parcels`: one COUNT and one page of ids from the order index (LIMIT/OFFSET over
   * the narrow index, not the rows), then those rows and their files, in one read transaction.
   * instr() instead of LIKE, so nothing in `q` is a wildcard. The filter decides which of four
   * statement shapes runs; its values are always bound.
   */
  page(filter: ParcelFilter, req: PageRequest): ParcelPage {
    const sql: string[] = [];
    const params: string[] = [];
    if (filter.state) {
      sql.push("state = ?");
      params.push(filter.state);
    }
    if (filter.q) {
      // Names never contain '/', which joins them in search_names: such a q can only be an id part.
      if (filter.q.includes("/")) sql.push("instr(id, ?) > 0");
      else {
        sql.push("(instr(search_names, ?) > 0 OR instr(id, ?) > 0)");
        params.push(filter.q.toLowerCase());
      }
      params.push(filter.q);
    }
    const where = sql.length > 0 ? `WHERE ${sql.join(" AND ")}` : "";
    return this.db.transaction((): ParcelPage => {
      const count = prepared(this.db, `SELECT COUNT(*) AS n FROM parcels ${where}`);
      const total = (count.get(...params) as { n: number }).n;
      const { page, pages, offset } = resolvePage(total, req);
      if (total === 0) return { rows: [], files: new Map(), total, page, pages };
      const pick = prepared(
        this.db,
        `SELECT id FROM parcels ${where} ORDER BY sort_at DESC, id DESC LIMIT ? OFFSET ?`,
      );
      const ids = (pick.all(...params, req.pageSize, offset) as Array<{ id: string }>).map(
        (r) => r.id,
      );
      const list = JSON.stringify(ids);
      const byId = new Map((this.s.rows.all(list) as ParcelRow[]).map((r) => [r.id, r]));
      const files = new Map<string, FileRow[]>();
      for (const f of this.s.files.all(list) as FileRow[]) {
        const held = files.get(f.parcel_id);
        if (held) held.push(f);
        else files.set(f.parcel_id, [f]);
      }
      const rows = ids.flatMap((id) => byId.get(id) ?? []);
      return { rows, files, total, page, pages };
    })();
  }

  /** Revokes a parcel whatever its state (keeping the time it first ended). */
  revoke(id: string, now: number): void {
    this.s.revoke.run(now, id);
  }

  deleteFile(fileId: string): void {
    this.s.deleteFile.run(fileId);
  }

  /** The parcel's search names and open reservation after one of its files went. */
  setNamesAndReserved(id: string, searchNames: string, reservedBytes: number): void {
    this.s.setNames.run(searchNames, reservedBytes, id);
  }

  /** Publishes a reviewed parcel again with a fresh term and download count. */
  reissue(id: string, days: number, expiresAt: number, downloads: number): void {
    this.s.reissue.run(days, expiresAt, downloads, downloads, id);
  }
}
