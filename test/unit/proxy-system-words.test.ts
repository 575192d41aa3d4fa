import { describe, expect, it } from "vitest";
import { describeFailure } from "../../server/proxy/system/connectivity.js";

function failure(code: string, message = `some Node text ${code}`): Error {
  return Object.assign(new Error(message), { code });
}

describe("connectivity failures in words", () => {
  it.each([
    ["ENOTFOUND", "The name could not be resolved", "connectivity.dns"],
    ["EAI_AGAIN", "The name could not be resolved", "connectivity.dns"],
    ["ECONNREFUSED", "The connection was refused", "connectivity.refused"],
    ["ECONNRESET", "The connection was cut off", "connectivity.reset"],
    ["EHOSTUNREACH", "The site cannot be reached from here", "connectivity.unreachable"],
    [
      "DEPTH_ZERO_SELF_SIGNED_CERT",
      "The certificate is not trusted",
      "connectivity.cert_untrusted",
    ],
    [
      "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
      "The certificate is not trusted",
      "connectivity.cert_untrusted",
    ],
    ["CERT_HAS_EXPIRED", "The certificate is out of date", "connectivity.cert_expired"],
    [
      "ERR_TLS_CERT_ALTNAME_INVALID",
      "The certificate is for another name",
      "connectivity.cert_name",
    ],
    ["ESOMETHINGNEW", "The connection failed", "connectivity.failed"],
  ])("says %s as a sentence", (code, detail, key) => {
    const said = describeFailure(failure(code), 7890);
    expect(said).toEqual({ detail, code: key });
    expect(said.detail).not.toContain(code);
    expect(said.detail).not.toContain("Node text");
  });

  it("says a connection closed before an answer, and an answer that is not HTTP", () => {
    expect(describeFailure(new Error("The connection closed before a response"), 1).code).toBe(
      "connectivity.closed",
    );
    expect(describeFailure(new Error("Not an HTTP response: SSH-2.0"), 1)).toEqual({
      detail: "The answer was not HTTP",
      code: "connectivity.not_http",
    });
  });
});
