import type { Db } from "../../db/open.js";
import type { RuleAction, RuleRecord, RuleType } from "../types.js";

interface Row {
  id: string;
  position: number;
  type: RuleType;
  value: string;
  action: RuleAction;
  enabled: number;
}

export type RuleFields = Omit<RuleRecord, "id">;

export class RulesRepo {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      list: db.prepare("SELECT * FROM rules ORDER BY position, id"),
      get: db.prepare("SELECT * FROM rules WHERE id = ?"),
      nextPos: db.prepare("SELECT COALESCE(MAX(position), 0) + 1 AS p FROM rules"),
      insert: db.prepare(
        "INSERT INTO rules (id, position, type, value, action, enabled) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      edit: db.prepare(
        "UPDATE rules SET type = ?, value = ?, action = ?, enabled = ? WHERE id = ?",
      ),
      move: db.prepare("UPDATE rules SET position = ? WHERE id = ?"),
      remove: db.prepare("DELETE FROM rules WHERE id = ?"),
      removeAll: db.prepare("DELETE FROM rules"),
    };
  }

  list(): RuleRecord[] {
    return (this.stmts.list.all() as Row[]).map((r) => ({
      id: r.id,
      type: r.type,
      value: r.value,
      action: r.action,
      enabled: r.enabled === 1,
    }));
  }

  get(id: string): RuleRecord | null {
    return this.list().find((r) => r.id === id) ?? null;
  }

  /**
   * The rule (and its 1-based place in the list) that already matches the same type and
   * value, other than `exceptId`: a second one could never be reached, the first match wins.
   */
  duplicateOf(f: Pick<RuleFields, "type" | "value">, exceptId = ""): [RuleRecord, number] | null {
    const list = this.list();
    const at = list.findIndex((r) => r.id !== exceptId && r.type === f.type && r.value === f.value);
    return at < 0 ? null : [list[at], at + 1];
  }

  create(id: string, f: RuleFields): void {
    const position = (this.stmts.nextPos.get() as { p: number }).p;
    this.stmts.insert.run(id, position, f.type, f.value, f.action, f.enabled ? 1 : 0);
  }

  edit(id: string, f: RuleFields): boolean {
    return this.stmts.edit.run(f.type, f.value, f.action, f.enabled ? 1 : 0, id).changes > 0;
  }

  remove(id: string): boolean {
    return this.stmts.remove.run(id).changes > 0;
  }

  /** Sets the list order; `ids` must be exactly the current ids (checked by the caller). */
  reorder(ids: string[]): void {
    this.db.transaction(() => ids.forEach((id, i) => this.stmts.move.run(i + 1, id)))();
  }

  /** Replaces every rule, keeping the given order; call inside a transaction. */
  replaceAll(rules: RuleRecord[]): void {
    this.stmts.removeAll.run();
    rules.forEach((r, i) =>
      this.stmts.insert.run(r.id, i + 1, r.type, r.value, r.action, r.enabled ? 1 : 0),
    );
  }
}
