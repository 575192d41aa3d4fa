import type { RulesView } from "../../contract/proxy.js";
import { DomainError } from "../../domain-errors.js";
import { newId } from "../store/ids.js";
import type { RulesRepo } from "../store/rules.js";
import type { Changes } from "./changes.js";
import type { NormalisedRule } from "./input-checks.js";

/** The fixed evaluation order around the custom rules (what the compiler emits). */
export const DEFAULT_RULES = [
  { match: "Internal, loopback, link-local and multicast addresses", action: "DIRECT" },
  { match: "Custom rules, in list order", action: "CUSTOM" },
  { match: "Mainland China domain and IP rule sets", action: "DIRECT" },
  { match: "All other targets", action: "PROXY" },
] as const;

const unknownRule = () => new DomainError("not_found", "rule.unknown", "Unknown rule");

/**
 * The custom routing rules: every change is checked and written in the change queue's turn,
 * in one transaction with its check, and reaches the core before it is answered (a refusal
 * of the core puts the previous rules back).
 */
export class Rules {
  constructor(
    private readonly repo: RulesRepo,
    private readonly changes: Changes,
  ) {}

  view(): RulesView {
    return { custom: this.repo.list(), defaults: [...DEFAULT_RULES] };
  }

  /** Adds a rule at the end of the list; answers its id. */
  async create(input: NormalisedRule): Promise<string> {
    const id = newId();
    await this.changes.change(() => {
      this.refuseDuplicate(input);
      this.repo.create(id, input);
    });
    return id;
  }

  async edit(id: string, input: NormalisedRule): Promise<void> {
    await this.changes.change(() => {
      if (!this.repo.get(id)) throw unknownRule();
      this.refuseDuplicate(input, id);
      this.repo.edit(id, input);
    });
  }

  async remove(id: string): Promise<void> {
    await this.changes.change(() => {
      if (!this.repo.remove(id)) throw unknownRule();
    });
  }

  /** Puts the rules in the order of `ids`, which must name every rule exactly once. */
  async reorder(ids: string[]): Promise<void> {
    await this.changes.change(() => {
      const current = this.repo.list().map((r) => r.id);
      const wanted = new Set(ids);
      if (
        wanted.size !== ids.length ||
        ids.length !== current.length ||
        current.some((id) => !wanted.has(id))
      ) {
        throw new DomainError("invalid", "rule.order", "ids must list every rule exactly once");
      }
      this.repo.reorder(ids);
    });
  }

  /** Refuses a rule whose type and value another rule already has (it could never match). */
  private refuseDuplicate(input: NormalisedRule, exceptId = ""): void {
    const found = this.repo.duplicateOf(input, exceptId);
    if (!found) return;
    const [rule, position] = found;
    throw new DomainError(
      "conflict",
      "rule.duplicate",
      `${input.type} ${input.value} is already rule ${position} (${rule.action}); edit that rule instead`,
      {
        params: { type: input.type, value: input.value, position, action: rule.action },
        extra: { ruleId: rule.id },
      },
    );
  }
}
