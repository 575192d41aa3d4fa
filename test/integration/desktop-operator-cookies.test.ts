import { describe, expect, it } from "vitest";
import { cookieHeader, parseSetCookie } from "../../main/operator/cookies.js";

/** Set-Cookie headers as the services and other servers write them, read for Electron. */
const URL = "http://127.0.0.1:8000";
const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

describe("Set-Cookie to Electron cookie", () => {
  it("keeps the service's own flags and turns Max-Age into an expiry", () => {
    expect(
      parseSetCookie(
        "pt_admin=abc%2Fdef; Max-Age=28800; Path=/; HttpOnly; SameSite=Strict; Expires=Thu, 01 Jan 2026 20:00:00 GMT",
        URL,
        NOW,
      ),
    ).toEqual({
      url: URL,
      name: "pt_admin",
      // Left encoded: the browser sends back exactly what the service set.
      value: "abc%2Fdef",
      httpOnly: true,
      secure: false,
      sameSite: "strict",
      path: "/",
      expirationDate: NOW / 1000 + 28800,
    });
  });

  it("reads Secure, SameSite=None and Lax, a path, and Expires without Max-Age", () => {
    expect(
      parseSetCookie(
        "a=1; Secure; SameSite=None; Path=/api; Expires=Fri, 02 Jan 2026 12:00:00 GMT",
        URL,
        NOW,
      ),
    ).toMatchObject({
      secure: true,
      sameSite: "no_restriction",
      path: "/api",
      expirationDate: NOW / 1000 + 86400,
    });
    expect(parseSetCookie("b=2; samesite=lax", URL, NOW)).toMatchObject({
      sameSite: "lax",
      httpOnly: false,
      path: "/",
    });
    expect(parseSetCookie("c=3", URL, NOW)).not.toHaveProperty("expirationDate");
  });

  it("lets Max-Age win over Expires, as browsers do", () => {
    expect(
      parseSetCookie("d=4; Expires=Thu, 01 Jan 2026 11:00:00 GMT; Max-Age=60", URL, NOW),
    ).toMatchObject({ expirationDate: NOW / 1000 + 60 });
  });

  it("leaves out removals and malformed headers", () => {
    expect(parseSetCookie("svc_session=; Max-Age=0; Path=/; HttpOnly", URL, NOW)).toBeNull();
    expect(parseSetCookie("e=5; Expires=Thu, 01 Jan 1970 00:00:00 GMT", URL, NOW)).toBeNull();
    expect(parseSetCookie("=novalue", URL, NOW)).toBeNull();
    expect(parseSetCookie("no-equals-sign", URL, NOW)).toBeNull();
  });

  it("sends cookies back as one Cookie header", () => {
    const a = parseSetCookie("a=1; HttpOnly", URL, NOW);
    const b = parseSetCookie("b=x%20y", URL, NOW);
    if (!a || !b) throw new Error("not parsed");
    expect(cookieHeader([a, b])).toBe("a=1; b=x%20y");
  });
});
