import { isAlias, isCollection, isNode, isPair, type Document } from "yaml";
import { SubscriptionError } from "./errors.js";

/** More aliases than any hand-written or generated feed uses. */
export const MAX_YAML_ALIASES = 10_000;
/** How many values alias resolution may add to what the document writes out. */
export const MAX_YAML_EXPANSION = 50_000;
/** Real feeds nest a handful of levels; deeper documents only serve to exhaust the stack. */
export const MAX_YAML_DEPTH = 200;

const TOO_MANY_ALIASES =
  `The subscription uses more than ${MAX_YAML_ALIASES.toLocaleString("en-US")} YAML aliases ` +
  "(*name); a feed that large is refused so that it cannot stall the service";
const TOO_BIG =
  `The subscription's YAML aliases expand to more than ${MAX_YAML_EXPANSION.toLocaleString("en-US")} ` +
  "values; a feed that large is refused so that it cannot stall the service";
export const TOO_DEEP = `The subscription's YAML is nested more than ${MAX_YAML_DEPTH} levels deep`;

/**
 * Replaces every alias of a parsed document by the node its anchor names, in one pass over
 * the document, so that converting it to plain values costs what the expanded document holds:
 * the library resolves each alias by scanning every anchor and alias written before it, which
 * makes a feed of 16,000 aliases take most of a minute. Throws a SubscriptionError when the
 * document uses more than MAX_YAML_ALIASES aliases, when resolving them would add more than
 * MAX_YAML_EXPANSION values (nested aliases multiply), when an alias names an anchor that is
 * not set before it or one that contains it, or when it nests deeper than MAX_YAML_DEPTH.
 */
export function inlineAliases(doc: Document): void {
  const anchors = new Map<string, unknown>();
  const targets: unknown[] = []; // the node each alias stood for, once per alias

  // Document order: an alias means the last node with that anchor before it, and an anchor
  // is set before the node's own content (so an alias inside it points back at it).
  const inline = (node: unknown, depth: number): unknown => {
    if (isAlias(node)) {
      if (targets.length >= MAX_YAML_ALIASES)
        throw new SubscriptionError("subscription.yaml_aliases", TOO_MANY_ALIASES, {
          params: { limit: MAX_YAML_ALIASES },
        });
      const target = anchors.get(node.source);
      if (target === undefined) {
        throw new SubscriptionError(
          "subscription.yaml_alias_unknown",
          `The subscription's YAML uses the alias *${node.source} without an anchor &${node.source} before it`,
          { params: { alias: node.source } },
        );
      }
      targets.push(target);
      return target;
    }
    if (!isNode(node)) return node;
    if (depth > MAX_YAML_DEPTH)
      throw new SubscriptionError("subscription.yaml_depth", TOO_DEEP, {
        params: { limit: MAX_YAML_DEPTH },
      });
    if (node.anchor) anchors.set(node.anchor, node);
    if (isCollection(node)) {
      const items = node.items as unknown[];
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if (isPair(item)) {
          item.key = inline(item.key, depth + 1);
          item.value = inline(item.value, depth + 1);
        } else items[i] = inline(item, depth + 1);
      }
    }
    return node;
  };
  doc.contents = inline(doc.contents, 0) as Document["contents"];
  if (targets.length === 0) return;

  // Values each node stands for once expanded (map keys are not counted unless they are
  // collections), computed once per node: aliased nodes are shared now.
  const sizes = new Map<unknown, number>();
  const open = new Set<unknown>();
  const size = (node: unknown): number => {
    if (!isCollection(node)) return isNode(node) ? 1 : 0;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    if (open.has(node)) {
      const name = node.anchor ? ` &${node.anchor}` : "";
      throw new SubscriptionError(
        "subscription.yaml_alias_loop",
        `The subscription's YAML anchor${name} contains an alias to itself`,
        { params: { alias: node.anchor ?? "" } },
      );
    }
    open.add(node);
    let total = 1;
    for (const item of node.items as unknown[]) {
      if (!isPair(item)) total += size(item);
      else total += size(item.value) + (isCollection(item.key) ? size(item.key) : 0);
    }
    open.delete(node);
    // Nested aliases multiply; the cap is far below where the number would lose precision.
    total = Math.min(total, Number.MAX_SAFE_INTEGER);
    sizes.set(node, total);
    return total;
  };
  size(doc.contents); // the document order again, so a cycle is found where it starts
  let added = 0;
  for (const target of targets) {
    added += size(target);
    if (added > MAX_YAML_EXPANSION)
      throw new SubscriptionError("subscription.yaml_expansion", TOO_BIG, {
        params: { limit: MAX_YAML_EXPANSION },
      });
  }
}
