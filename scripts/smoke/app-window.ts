/**
 * Starts an installed Gatehouse (the AppImage, the app inside the dmg, the one the NSIS installer
 * put in place) and proves from outside that its first window works: the window signs itself in
 * to both consoles, the Desktop screen opens as the app's own page, and a service page is refused
 * what only that page may ask. Screenshots of each step go to --shots. The release workflow runs
 * it on each installer's own runner; it exits 1 on the first failure.
 *
 *   npx tsx scripts/smoke/app-window.ts --exe <path> --shots <dir> [--name <label>] [--arch x64]
 *
 * Packaged apps have Node's inspector turned off (electron-builder.yml `electronFuses`), so
 * Playwright's `_electron` cannot drive them; the app is started with Chromium's own
 * `--remote-debugging-port` and Playwright connects over the DevTools protocol instead.
 */
import { chromium, type Page } from "@playwright/test";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

interface Options {
  exe: string;
  shots: string;
  name: string;
  /** macOS: run the app as this architecture (`arch -x86_64` for the Intel build). */
  arch: string | null;
}

function options(argv: string[]): Options {
  const value = (flag: string): string | null => {
    const at = argv.indexOf(flag);
    return at >= 0 ? (argv[at + 1] ?? null) : null;
  };
  const exe = value("--exe");
  if (!exe) throw new Error("usage: app-window.ts --exe <path> --shots <dir> [--name <label>]");
  return {
    exe: resolve(exe),
    shots: resolve(value("--shots") ?? "shots"),
    name: value("--name") ?? "app",
    arch: value("--arch"),
  };
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | null>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = await probe().catch(() => null);
    if (found !== null) return found;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The whole screen, as the OS draws it (best effort: the page shots are the proof). */
function screenShot(file: string): void {
  const tools: Record<string, [string, string[]]> = {
    darwin: ["screencapture", ["-x", file]],
    linux: ["import", ["-window", "root", file]],
    win32: [
      "powershell",
      [
        "-NoProfile",
        "-Command",
        `Add-Type -AssemblyName System.Windows.Forms,System.Drawing; $b=[System.Windows.Forms.Screen]::PrimaryScreen.Bounds; $i=New-Object System.Drawing.Bitmap $b.Width,$b.Height; [System.Drawing.Graphics]::FromImage($i).CopyFromScreen($b.Location,[System.Drawing.Point]::Empty,$b.Size); $i.Save('${file}')`,
      ],
    ],
  };
  const tool = tools[process.platform];
  if (!tool) return;
  const result = spawnSync(tool[0], tool[1], { stdio: "ignore", timeout: 20_000 });
  if (result.status !== 0) console.warn(`smoke: no screen shot (${tool[0]} unavailable)`);
}

function stop(app: ChildProcess): void {
  if (app.exitCode !== null || app.pid === undefined) return;
  if (process.platform === "win32") spawnSync("taskkill", ["/PID", String(app.pid), "/T", "/F"]);
  else app.kill("SIGTERM");
}

async function refusedFromServicePage(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const g = (
      window as unknown as {
        gatehouse: { operator: { revealPassword(s: string): Promise<unknown> } };
      }
    ).gatehouse;
    return g.operator.revealPassword("parcel").then(
      () => "answered",
      (e: Error) => e.message.split(":")[0],
    );
  });
}

async function main(): Promise<void> {
  const o = options(process.argv.slice(2));
  mkdirSync(o.shots, { recursive: true });
  const home = mkdtempSync(join(tmpdir(), "gh-smoke-"));
  const port = await freePort();
  const args = [`--user-data-dir=${join(home, "user-data")}`, `--remote-debugging-port=${port}`];
  const [command, commandArgs] = o.arch
    ? ["arch", [`-${o.arch === "x64" ? "x86_64" : "arm64"}`, o.exe, ...args]]
    : [o.exe, args];
  const app = spawn(command, commandArgs, {
    env: {
      ...process.env,
      GATEHOUSE_DATA_DIR: join(home, "data"),
      // Loopback only: no firewall prompt on the runner, nothing reachable from outside.
      GATEHOUSE_HOST: "127.0.0.1",
      GATEHOUSE_PARCEL_PORT: "0",
      GATEHOUSE_PROXY_PORT: "0",
    },
    stdio: "inherit",
  });
  const started = Date.now();
  try {
    const browser = await until("the app's DevTools endpoint", 60_000, async () => {
      if (app.exitCode !== null) throw new Error(`the app ended with ${app.exitCode}`);
      return chromium.connectOverCDP(`http://127.0.0.1:${port}`);
    });
    const page = await until("the window on the parcel page", 90_000, async () => {
      if (app.exitCode !== null) throw new Error(`the app ended with ${app.exitCode}`);
      const pages = browser.contexts().flatMap((c) => c.pages());
      return pages.find((p) => /^http:\/\/127\.0\.0\.1:\d+\//.test(p.url())) ?? null;
    });
    console.log(`smoke: the window shows ${page.url()} ${Date.now() - started} ms after the start`);
    const parcel = new URL(page.url()).origin;

    await page.goto(`${parcel}/#/admin`);
    await page.getByRole("heading", { name: "Parcel administration" }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(o.shots, `${o.name}-1-parcel-admin-signed-in.png`) });
    screenShot(join(o.shots, `${o.name}-1-screen.png`));

    const info = await page.evaluate(() =>
      (
        window as unknown as {
          gatehouse: { app: { info(): Promise<{ proxy: { url: string } | null }> } };
        }
      ).gatehouse.app.info(),
    );
    if (!info.proxy) throw new Error("the proxy console is not running");
    await page.goto(`${info.proxy.url}/`);
    await page
      .getByRole("button", { name: /log out/i })
      .first()
      .waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(o.shots, `${o.name}-2-proxy-console-signed-in.png`) });

    // The privileged half of the bridge: refused to a service page, answered to the app's page.
    const refused = await refusedFromServicePage(page);
    if (refused !== "ipc.foreign_sender")
      throw new Error(`a service page asked for a password and got: ${refused}`);
    await page.evaluate(() =>
      (
        window as unknown as { gatehouse: { app: { open(a: string): Promise<void> } } }
      ).gatehouse.app.open("settings"),
    );
    await page.waitForURL("app://gatehouse/desktop.html", { timeout: 30_000 });
    await page.getByRole("heading", { name: "Desktop", level: 1 }).waitFor({ timeout: 30_000 });
    const fromApp = await page.evaluate(
      async () =>
        typeof (await (
          window as unknown as {
            gatehouse: { operator: { revealPassword(s: string): Promise<unknown> } };
          }
        ).gatehouse.operator.revealPassword("parcel")),
    );
    if (fromApp !== "string")
      throw new Error("the Desktop screen could not read the kept password");
    await page.screenshot({
      path: join(o.shots, `${o.name}-3-desktop-screen.png`),
      fullPage: true,
    });
    screenShot(join(o.shots, `${o.name}-3-screen.png`));
    await browser.close();
    console.log(`smoke: ${o.name} passed`);
  } finally {
    stop(app);
  }
}

main().catch((err: unknown) => {
  console.error(`smoke: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
