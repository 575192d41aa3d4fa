import { afterEach, describe, expect, expectTypeOf, it, vi } from "vitest";
import { PARCEL_API, type Published, type Share } from "../../server/contract/parcel.js";
import { RecipientViewCheckSchema } from "../../server/contract/parcel-public.js";
import { ApiError, createApiClient, UNEXPECTED_ANSWER } from "../../renderer/shared/api-client.js";
import {
  checksOf,
  forContract,
  target,
  wholeContractApi,
} from "../../renderer/shared/contract-api.js";
import { api as lightApi, type ParcelApi } from "../../renderer/parcel/api.js";

// The pages call the services by contract key. The `@ts-expect-error` lines are compiled by the
// typecheck (`tsc -p tsconfig.json`): each fails to compile without its directive, so a key
// that is not a contract entry, or a body, params or answer of the wrong shape, cannot ship.

/** Fetch as the client sees it: each request is recorded, each answer given by the test. */
function fakeFetch(answer: () => Response) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  vi.stubGlobal("fetch", (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return Promise.resolve(answer());
  });
  return calls;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

const client = createApiClient({ headers: () => ({ "X-Test": "1" }) });
const parcel = wholeContractApi(client, PARCEL_API);

afterEach(() => vi.unstubAllGlobals());

describe("the pages' client is typed from the contract's entries", () => {
  it("refuses, at compile time, a key, params or body the contract does not have", () => {
    const never = () => {
      // @ts-expect-error not an entry of the parcel contract
      void parcel("GET /nope");
      // @ts-expect-error the path's `:id` must be given
      void parcel("GET /uploads/:id");
      // @ts-expect-error `params` names the entry's own parameters
      void parcel("GET /uploads/:id", { params: { file: "x" } });
      // @ts-expect-error a body the entry does not take
      void parcel("GET /mine", { body: {} });
      // @ts-expect-error a body member the schema does not name
      void parcel("POST /pickup/resolve", { body: { code: "abc-def", pin: "1" } });
      // @ts-expect-error the body's members have the schema's types
      void parcel("POST /admin/inbox", { body: { minutes: "60" } });
      // @ts-expect-error the light pages' client knows only its own keys
      void lightApi("GET /admin/stats");
      const mine = PARCEL_API["GET /mine"].responses[200].schema;
      // @ts-expect-error a light check must produce the contract's answer, or a part of it
      forContract<ParcelApi>()(client, { "GET /pickup": mine });
    };
    expect(typeof never).toBe("function");
  });

  it("types each answer as the entry's 2xx schema's output", () => {
    // Compiled, never run: no request is made.
    const typed = () => {
      expectTypeOf(
        parcel("POST /parcels/:id/code", { params: { id: "x" } }),
      ).resolves.toEqualTypeOf<Share>();
      expectTypeOf(
        parcel("POST /uploads/:id/publish", { params: { id: "x" } }),
      ).resolves.toMatchTypeOf<Published | { delivered: true }>();
      // A route answered by bytes has no JSON answer to read: its raw response is asked for.
      expectTypeOf(parcel.raw("GET /pickup/archive")).resolves.toEqualTypeOf<Response>();
    };
    expect(typeof typed).toBe("function");
  });

  it("carries every entry's own answer schema, and nothing that is not an entry", () => {
    const checks = checksOf(PARCEL_API);
    expect(Object.keys(checks)).toEqual(Object.keys(PARCEL_API));
    expect(checks["GET /pickup"]).toBe(PARCEL_API["GET /pickup"].responses[200].schema);
    expect(checks["POST /uploads"]).toBe(PARCEL_API["POST /uploads"].responses[201].schema);
    expect(checks["GET /pickup/archive"]).toBeNull();
  });
});

describe("a call at run time", () => {
  it("refuses an unknown key before any request is made", async () => {
    const calls = fakeFetch(() => json({}));
    await expect((parcel as (key: string) => Promise<unknown>)("GET /nope")).rejects.toThrow(
      TypeError,
    );
    await expect(
      (lightApi as (key: string) => Promise<unknown>)("GET /admin/stats"),
    ).rejects.toThrow(/not a route this page's client knows/);
    expect(calls).toHaveLength(0);
  });

  it("sends the key's method to its path, params encoded, query and body as given", async () => {
    const calls = fakeFetch(() => json({ id: "p", files: [], expires_at: 1, downloads_left: 2 }));
    const answer = await parcel("POST /pickup/resolve", { body: { code: "abc-def" } });
    expect(answer).toEqual({ id: "p", files: [], expires_at: 1, downloads_left: 2 });
    expect(calls[0].url).toBe("/api/v1/pickup/resolve");
    expect(calls[0].init.method).toBe("POST");
    expect(calls[0].init.body).toBe(JSON.stringify({ code: "abc-def" }));
    expect(calls[0].init.headers).toMatchObject({
      "X-Test": "1",
      "Content-Type": "application/json",
    });
    expect(
      target("GET /admin/parcels", { query: { page: "2", q: "a b&c", state: undefined } }),
    ).toEqual({ method: "GET", path: "/admin/parcels?page=2&q=a+b%26c" });
    expect(target("DELETE /uploads/:id/files/:file", { params: { id: "a/b", file: "é" } })).toEqual(
      { method: "DELETE", path: "/uploads/a%2Fb/files/%C3%A9" },
    );
    expect(parcel.url("GET /pickup/files/:file/download", { params: { file: "f 1" } })).toBe(
      "/api/v1/pickup/files/f%201/download",
    );
  });

  it("checks the answer with the entry's schema: a wrong shape is one ApiError", async () => {
    fakeFetch(() => json({ id: "p" }));
    const failure = await parcel("GET /pickup").catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).code).toBe(UNEXPECTED_ANSWER);
    // A light page's small check refuses the same answer.
    const light = forContract<ParcelApi>()(client, { "GET /pickup": RecipientViewCheckSchema });
    await expect(light("GET /pickup")).rejects.toMatchObject({ code: UNEXPECTED_ANSWER });
  });

  it("throws the service's error as ApiError, its code and status kept", async () => {
    fakeFetch(() => json({ error: "No parcel has this code.", code: "pickup.not_found" }, 404));
    await expect(
      parcel("POST /pickup/resolve", { body: { code: "abc-def" } }),
    ).rejects.toMatchObject({ status: 404, code: "pickup.not_found" });
  });
});
