import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APP_CSP, appAnswer, appHeaders, DESKTOP_PAGE, isAppUrl } from "../../main/app-protocol.js";
import { mayCall, senderKind, type IpcSender } from "../../main/ipc/sender.js";
import { ownerAuthorization, ownerRequestParcel } from "../../main/secrets/owner-requests.js";
import { cspFor, CSP, isAllowedNavigation } from "../../main/security.js";

/**
 * Who may call the privileged bridge, what the window may show, what the app's own pages
 * serve, and which of the window's requests get a kept token: the decisions behind the
 * Desktop screen at app://gatehouse/, each for every kind of sender or address.
 */

const PARCEL = "http://127.0.0.1:8000";
const PROXY = "http://127.0.0.1:8080";
const LAN_ENTRY = "http://192.168.1.23:8000";
const ORIGINS = [PARCEL, PROXY, LAN_ENTRY];

const main = (url: string): IpcSender => ({ url, frameIsMain: true });

describe("who sent a call", () => {
  it("an app page", () => {
    expect(senderKind(main(DESKTOP_PAGE), ORIGINS)).toBe("app");
    expect(senderKind(main("app://gatehouse/message?n=3"), ORIGINS)).toBe("app");
  });

  it("a service page on loopback", () => {
    expect(senderKind(main(`${PARCEL}/#/admin`), ORIGINS)).toBe("service");
    expect(senderKind(main(`${PROXY}/`), ORIGINS)).toBe("service");
  });

  it("a LAN page: a service page by an entry address, or any other LAN host", () => {
    expect(senderKind(main(`${LAN_ENTRY}/#/mine`), ORIGINS)).toBe("service");
    expect(senderKind(main("http://192.168.1.50:8000/"), ORIGINS)).toBe("foreign");
    expect(senderKind(main("http://192.168.1.23:8001/"), ORIGINS)).toBe("foreign");
  });

  it("data:, about:blank, file: and other schemes", () => {
    for (const url of [
      "data:text/html,<script>1</script>",
      "about:blank",
      "about:srcdoc",
      "file:///home/operator/Desktop/page.html",
      "javascript:alert(1)",
      "chrome://settings",
      "devtools://devtools/bundled/inspector.html",
      "",
    ])
      expect(senderKind(main(url), ORIGINS), url).toBe("foreign");
  });

  it("look-alikes of the app's origin and subframes", () => {
    for (const url of [
      "app://gatehouse.evil/desktop.html",
      "app://evil/desktop.html",
      "app://gatehouse@evil/desktop.html",
      "app://gatehouse:443/desktop.html",
      "app:gatehouse/desktop.html",
      "APP://GATEHOUSE/desktop.html",
      "https://gatehouse/desktop.html",
    ])
      expect(senderKind(main(url), ORIGINS), url).toBe("foreign");
    expect(senderKind({ url: DESKTOP_PAGE, frameIsMain: false }, ORIGINS)).toBe("foreign");
    expect(senderKind({ url: `${PARCEL}/`, frameIsMain: false }, ORIGINS)).toBe("foreign");
  });

  it("the app page may call everything, a service page only the window's channels", () => {
    expect(mayCall("app", "app")).toBe(true);
    expect(mayCall("app", "window")).toBe(true);
    expect(mayCall("service", "window")).toBe(true);
    expect(mayCall("service", "app")).toBe(false);
    expect(mayCall("foreign", "window")).toBe(false);
    expect(mayCall("foreign", "app")).toBe(false);
  });
});

describe("what the window may show", () => {
  it("the services' pages and the app's own pages", () => {
    expect(isAllowedNavigation(`${PARCEL}/#/admin`, ORIGINS)).toBe(true);
    expect(isAllowedNavigation(`${LAN_ENTRY}/`, ORIGINS)).toBe(true);
    expect(isAllowedNavigation(DESKTOP_PAGE, ORIGINS)).toBe(true);
  });

  it("nothing else: data: pages included", () => {
    for (const url of [
      "data:text/html,<h1>Gatehouse</h1>",
      "data:text/html;base64,PHNjcmlwdD4=",
      "data:image/svg+xml,<svg/>",
      "about:blank",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "blob:http://127.0.0.1:8000/x",
      "http://127.0.0.1:9090/",
      "https://example.com/",
      "app://evil/desktop.html",
      "gatehouse-custom://x",
      "not a url",
    ])
      expect(isAllowedNavigation(url, ORIGINS), url).toBe(false);
  });

  it("puts the app pages' own policy on their answers and the services' on theirs", () => {
    expect(cspFor(DESKTOP_PAGE)).toBe(APP_CSP);
    expect(cspFor(`${PARCEL}/`)).toBe(CSP);
    expect(APP_CSP).toContain("connect-src 'none'");
    expect(APP_CSP).toContain("script-src 'self'");
    expect(APP_CSP).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
  });
});

describe("what the app's pages serve", () => {
  const root = mkdtempSync(join(tmpdir(), "gh-app-pages-"));
  mkdirSync(join(root, "assets"));
  writeFileSync(join(root, "desktop.html"), "<!doctype html>");
  writeFileSync(join(root, "assets", "desktop-1.js"), "1");

  it("files of the built Desktop screen, with their type", () => {
    expect(appAnswer(root, DESKTOP_PAGE)).toEqual({
      kind: "file",
      path: join(root, "desktop.html"),
      type: "text/html; charset=utf-8",
    });
    expect(appAnswer(root, "app://gatehouse/")).toMatchObject({ path: join(root, "desktop.html") });
    expect(appAnswer(root, "app://gatehouse/assets/desktop-1.js?v=1")).toMatchObject({
      kind: "file",
      type: "text/javascript; charset=utf-8",
    });
    expect(appAnswer(root, "app://gatehouse/message?n=2")).toEqual({ kind: "message" });
  });

  it("nothing outside the folder, hidden, of another type, or for another host", () => {
    for (const url of [
      "app://gatehouse/%2e%2e/%2e%2e/etc/passwd",
      "app://gatehouse/assets/..%2f..%2fsecret.js",
      "app://gatehouse/assets%5c..%5c..%5cx.js",
      "app://gatehouse/.env.js",
      "app://gatehouse/%00.js",
      "app://gatehouse/%E0%A4%A.js",
      "app://evil/desktop.html",
    ])
      expect(appAnswer(root, url).kind, url).toBe("refused");
    expect(appAnswer(root, "app://gatehouse/package.txt")).toEqual({
      kind: "refused",
      status: 404,
    });
    expect(isAppUrl("app://gatehouse/../../x")).toBe(true);
    // Parsing takes the dots out before the path is looked at: still inside the folder.
    expect(appAnswer(root, "app://gatehouse/../desktop.html")).toMatchObject({ kind: "file" });
  });

  it("with the app's policy and no sniffing or caching", () => {
    expect(appHeaders("text/html; charset=utf-8")).toEqual({
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": APP_CSP,
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
    });
  });
});

describe("tokens the main process attaches to the window's requests", () => {
  const ID = "AbCdEfGhIjKlMnOpQrStUv";
  const kept = { get: (account: string) => (account === `parcel:${ID}` ? "the-token" : null) };
  const parcels = [PARCEL, LAN_ENTRY];

  it("to the parcel service's owner routes of a kept parcel, when the page sent none", () => {
    for (const path of [
      `/api/v1/uploads/${ID}`,
      `/api/v1/uploads/${ID}/files/f1`,
      `/api/v1/uploads/${ID}/publish`,
      `/api/v1/parcels/${ID}/revoke`,
      `/api/v1/parcels/${ID}/code`,
    ]) {
      expect(ownerAuthorization(`${PARCEL}${path}`, {}, parcels, kept), path).toBe(
        "Bearer the-token",
      );
      expect(ownerAuthorization(`${LAN_ENTRY}${path}`, {}, parcels, kept), path).toBe(
        "Bearer the-token",
      );
    }
  });

  it("never elsewhere, never twice, and not for a parcel it does not keep", () => {
    const none = (url: string, headers: Record<string, string> = {}) =>
      ownerAuthorization(url, headers, parcels, kept);
    expect(none(`${PROXY}/api/v1/uploads/${ID}`)).toBeNull();
    expect(none(`http://evil.example/api/v1/uploads/${ID}`)).toBeNull();
    expect(none(`${PARCEL}/api/v1/mine`)).toBeNull();
    expect(none(`${PARCEL}/api/v1/pickup/files/${ID}/download`)).toBeNull();
    expect(none(`${PARCEL}/api/v1/uploads/ZZZZZZZZZZZZZZZZZZZZZZ`)).toBeNull();
    expect(none(`${PARCEL}/api/v1/uploads/${ID}`, { authorization: "Bearer own" })).toBeNull();
    expect(none(`${PARCEL}/api/v1/uploads/${ID}`, { Authorization: "Bearer own" })).toBeNull();
    expect(none(`app://gatehouse/api/v1/uploads/${ID}`)).toBeNull();
    expect(ownerRequestParcel(`${PARCEL}/api/v1/uploadsX/${ID}`, parcels)).toBeNull();
  });

  it("leaves the request alone when the keychain does not answer", () => {
    const broken = {
      get: (): string | null => {
        throw new Error("keychain: no Secret Service");
      },
    };
    expect(ownerAuthorization(`${PARCEL}/api/v1/uploads/${ID}`, {}, parcels, broken)).toBeNull();
  });
});
