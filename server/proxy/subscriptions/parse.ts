import type { MihomoProxy } from "../types.js";
import { SubscriptionError } from "./errors.js";

export type FeedFormat = "clash" | "base64" | "uri-list" | "sip008";

export interface ParsedSubscription {
  nodes: MihomoProxy[];
  skipped: number;
  format: FeedFormat;
}

/** Reads a subscription document into mihomo proxy objects (first version: stub). */
export function parseSubscription(body: Buffer | string): ParsedSubscription {
  void body;
  throw new SubscriptionError("The subscription is not in a recognised format");
}
