import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SubscriptionError } from "../../server/proxy/subscriptions/errors.js";
import { fetchSubscription } from "../../server/proxy/subscriptions/fetch.js";
import { parseSubscription } from "../../server/proxy/subscriptions/parse.js";
import { FEEDS_DIR, startFeedServer, type FeedServer } from "../fixtures/feed-server.js";

let feeds: FeedServer;
beforeAll(async () => {
  feeds = await startFeedServer();
});
afterAll(async () => {
  await feeds.close();
});

const MiB = 1024 * 1024;

async function failure(promise: Promise<unknown>): Promise<SubscriptionError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SubscriptionError);
  return err as SubscriptionError;
}

describe("fetchSubscription: a good answer", () => {
  it("downloads a named feed with a clash.meta User-Agent and reads the headers", async () => {
    feeds.setRoute("/sub/clash", {
      feed: "clash.yml",
      headers: {
        "Subscription-Userinfo": "upload=1024;download=2.5e+3 ; total=1.5e+11; expire=",
        "Profile-Update-Interval": "12",
        "Content-Disposition":
          "attachment; filename=x.yaml; filename*=UTF-8''%E6%9C%BA%E5%9C%BA.yaml",
      },
    });
    const out = await fetchSubscription(`${feeds.url}/sub/clash?token=abc`);
    expect(out.body.equals(readFileSync(join(FEEDS_DIR, "clash.yml")))).toBe(true);
    expect(out.usage).toEqual({ upload: 1024, download: 2500, total: 150000000000, expire: null });
    expect(out.updateIntervalHours).toBe(12);
    expect(out.filename).toBe("机场.yaml");
    const req = feeds.requests.find((r) => r.path === "/sub/clash?token=abc");
    expect(req?.headers["user-agent"]).toBe("clash.meta/v1.19.12 mihomo/1.19.12");
    expect(parseSubscription(out.body).nodes).toHaveLength(11);
  });

  it("sends the given User-Agent and answers null for absent headers", async () => {
    const out = await fetchSubscription(`${feeds.url}/feeds/uri-list.txt`, {
      userAgent: "clash.meta/test",
    });
    expect(out).toMatchObject({ usage: null, updateIntervalHours: null, filename: null });
    expect(feeds.requests.at(-1)?.headers["user-agent"]).toBe("clash.meta/test");
  });

  it("decompresses a gzip answer", async () => {
    feeds.setRoute("/sub/gzip", { feed: "base64-all.txt", gzip: true });
    const out = await fetchSubscription(`${feeds.url}/sub/gzip`);
    expect(out.body.equals(readFileSync(join(FEEDS_DIR, "base64-all.txt")))).toBe(true);
  });

  it("serves the content set last (a feed swapped at run time)", async () => {
    feeds.setRoute("/sub/swap", { body: "first" });
    expect((await fetchSubscription(`${feeds.url}/sub/swap`)).body.toString()).toBe("first");
    feeds.setRoute("/sub/swap", { status: 500, body: "down" });
    expect((await failure(fetchSubscription(`${feeds.url}/sub/swap`))).message).toBe(
      "The subscription server answered 500",
    );
  });
});

describe("fetchSubscription: HTTPS", () => {
  it("trusts the server when given its CA", async () => {
    const out = await fetchSubscription(`${feeds.httpsUrl}/feeds/sip008.json`, { ca: feeds.ca });
    expect(parseSubscription(out.body).format).toBe("sip008");
    expect(feeds.requests.at(-1)?.secure).toBe(true);
  });

  it("refuses an untrusted certificate", async () => {
    const err = await failure(fetchSubscription(`${feeds.httpsUrl}/feeds/sip008.json`));
    expect(err.message).toBe("The subscription server's certificate is not trusted");
  });
});

describe("fetchSubscription: redirects", () => {
  it("follows five redirects, relative and across to HTTPS", async () => {
    feeds.setRoute("/r/1", { redirect: "/r/2" });
    feeds.setRoute("/r/2", { redirect: `${feeds.url}/r/3`, status: 301 });
    feeds.setRoute("/r/3", { redirect: "4", status: 307 });
    feeds.setRoute("/r/4", { redirect: `${feeds.httpsUrl}/r/5`, status: 308 });
    feeds.setRoute("/r/5", { redirect: "/feeds/uri-list.txt", status: 303 });
    const out = await fetchSubscription(`${feeds.url}/r/1`, { ca: feeds.ca });
    expect(parseSubscription(out.body).format).toBe("uri-list");
  });

  it("stops after five", async () => {
    for (let i = 0; i < 6; i++) feeds.setRoute(`/loop/${i}`, { redirect: `/loop/${i + 1}` });
    feeds.setRoute("/loop/6", { body: "never reached" });
    const err = await failure(fetchSubscription(`${feeds.url}/loop/0`));
    expect(err.message).toBe("The subscription server redirected too many times");
    expect(feeds.requests.some((r) => r.path === "/loop/6")).toBe(false);
  });

  it("refuses a redirect to another scheme", async () => {
    feeds.setRoute("/r/ftp", { redirect: "ftp://127.0.0.1/feed" });
    const err = await failure(fetchSubscription(`${feeds.url}/r/ftp`));
    expect(err.message).toBe(
      "The subscription server redirected to an address that is not http or https",
    );
  });
});

describe("fetchSubscription: failures", () => {
  it.each([404, 500, 403])("treats %i as an error", async (status) => {
    feeds.setRoute(`/status/${status}`, { status, body: "nope" });
    const err = await failure(fetchSubscription(`${feeds.url}/status/${status}`));
    expect(err.message).toBe(`The subscription server answered ${status}`);
  });

  it("gives up at the deadline when the server is slow to answer", async () => {
    feeds.setRoute("/slow", { delayMs: 5000, body: "late" });
    const started = Date.now();
    const err = await failure(fetchSubscription(`${feeds.url}/slow`, { timeoutMs: 250 }));
    expect(err.message).toBe("The subscription server did not answer within 0.25 seconds");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("keeps one deadline for the whole download, body included", async () => {
    feeds.setRoute("/slow-body", { bodyDelayMs: 5000, body: "late" });
    const err = await failure(fetchSubscription(`${feeds.url}/slow-body`, { timeoutMs: 300 }));
    expect(err.message).toBe("The subscription server did not answer within 0.3 seconds");
  });

  it("says the default deadline in whole seconds", async () => {
    feeds.setRoute("/slow-2", { delayMs: 5000 });
    const err = await failure(fetchSubscription(`${feeds.url}/slow-2`, { timeoutMs: 1000 }));
    expect(err.message).toBe("The subscription server did not answer within 1 second");
  });

  it("aborts a streamed body past 16 MiB", async () => {
    feeds.setRoute("/huge", { streamBytes: 17 * MiB });
    const err = await failure(fetchSubscription(`${feeds.url}/huge`));
    expect(err.message).toBe("The subscription is larger than 16 MiB");
  });

  it("refuses a declared length past the limit before reading it", async () => {
    feeds.setRoute("/big", { body: Buffer.alloc(4096, "a") });
    const err = await failure(fetchSubscription(`${feeds.url}/big`, { maxBytes: 4095 }));
    expect(err.message).toBe("The subscription is larger than 4095 bytes");
    const ok = await fetchSubscription(`${feeds.url}/big`, { maxBytes: 4096 });
    expect(ok.body.length).toBe(4096);
  });

  it("counts the decompressed size against the limit", async () => {
    feeds.setRoute("/bomb", { body: Buffer.alloc(2 * MiB, "a"), gzip: true });
    const err = await failure(fetchSubscription(`${feeds.url}/bomb`, { maxBytes: MiB }));
    expect(err.message).toBe("The subscription is larger than 1 MiB");
  });

  it("reports a connection cut mid-body", async () => {
    feeds.setRoute("/reset", { feed: "base64-all.txt", resetAfterBytes: 100 });
    const err = await failure(fetchSubscription(`${feeds.url}/reset`));
    expect(err.message).toBe(
      "The subscription server closed the connection before the download finished",
    );
  });

  it("reports a refused connection", async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const err = await failure(fetchSubscription(`http://127.0.0.1:${port}/x`));
    expect(err.message).toBe("The subscription server refused the connection");
  });

  it("stops when the caller aborts", async () => {
    feeds.setRoute("/slow-3", { delayMs: 5000 });
    const abort = new AbortController();
    const pending = fetchSubscription(`${feeds.url}/slow-3`, { signal: abort.signal });
    setTimeout(() => abort.abort(), 50);
    expect((await failure(pending)).message).toBe("The subscription download was cancelled");
  });

  it.each([
    ["ftp://127.0.0.1/feed", "The subscription URL must use http or https"],
    ["not a url", "The subscription URL is not valid"],
  ])("refuses %s", async (url, message) => {
    expect((await failure(fetchSubscription(url))).message).toBe(message);
  });

  it("answers 404 for a feed that does not exist", async () => {
    const err = await failure(fetchSubscription(`${feeds.url}/feeds/missing.txt`));
    expect(err.message).toBe("The subscription server answered 404");
  });
});
