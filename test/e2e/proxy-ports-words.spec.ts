import { expect, test, type Page } from "@playwright/test";
import net from "node:net";
import { freePort, startProxyConsole, type ProxyConsole } from "./support/proxy-harness.js";
import { DESKTOP, PHONE, setLang, setUp, signIn } from "./support/proxy-page.js";
import { shootTarget } from "./support/proxy-shots.js";

/**
 * Two leftovers of the first hour: a proxy port another program holds is refused beside its
 * field (it was saved, and the core could not listen there), and the notices that quote a
 * rule say it in words, in the reader's language, not in the core's keywords.
 */

let svc: ProxyConsole;
const holders: net.Server[] = [];

test.beforeAll(async () => {
  svc = await startProxyConsole();
  await setUp(svc);
});
test.afterAll(async () => {
  for (const s of holders.splice(0)) await new Promise((r) => s.close(r));
  await svc?.close();
});
test.describe.configure({ mode: "serial" });

const KEYWORD = /DOMAIN|IP-CIDR|DIRECT|PROXY/;

/** Another program listening on a free port of 127.0.0.1; answers the port. */
async function holdPort(): Promise<number> {
  const s = net.createServer((sock) => sock.destroy());
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  holders.push(s);
  return (s.address() as net.AddressInfo).port;
}

async function storedMixedPort(page: Page): Promise<number> {
  const r = await page.request.get(`${svc.url}/api/v1/settings`);
  return ((await r.json()) as { mixedPort: number }).mixedPort;
}

for (const viewport of [DESKTOP, PHONE]) {
  test(`settings at ${viewport.width} px: a port another program holds is refused beside its field, in both languages`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    const port = await holdPort();
    await signIn(page, svc, "#/settings");
    const before = await storedMixedPort(page);
    const field = page.locator(".field").filter({ has: page.getByLabel("HTTP/SOCKS port") });
    await field.getByLabel("HTTP/SOCKS port").fill(String(port));
    await page.getByRole("button", { name: "Save settings" }).click();

    const en = `Port ${port} is used by another program; choose another port, or stop that program.`;
    await expect(field.locator(".field-error")).toHaveText(en);
    await expect(field.getByLabel("HTTP/SOCKS port")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText("Correct the marked fields.")).toBeVisible();
    await expect(page.getByText("Settings saved.")).toHaveCount(0);
    // Said once, beside the field, not again under the buttons.
    await expect(page.getByText(en)).toHaveCount(1);
    expect(await storedMixedPort(page)).toBe(before);
    await shootTarget(page, "settings-port-in-use", field);

    await setLang(page, "zh-CN");
    const zhField = page.locator(".field").filter({ has: page.getByLabel("HTTP/SOCKS 端口") });
    await expect(zhField.locator(".field-error")).toHaveText(
      `端口 ${port} 已被其他程序占用；请换一个端口，或停止该程序。`,
    );
    await expect(page.locator("main")).not.toContainText("used by another program");
    await shootTarget(page, "settings-port-in-use", zhField);
    await setLang(page, "en");

    // Another port: the refusal goes with the edit, beside the field and under the form alike
    // (it was once said under the buttons instead, about a port no longer in the field).
    const free = await freePort();
    await field.getByLabel("HTTP/SOCKS port").fill(String(free));
    await expect(field.locator(".field-error")).toHaveCount(0);
    await expect(page.getByText(en)).toHaveCount(0);
    // A save the form stops for another field says that field, not the old port.
    const timeout = page.getByLabel("Latency test timeout (ms)");
    const timeoutWas = await timeout.inputValue();
    await timeout.fill("5");
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Correct the marked fields.")).toBeVisible();
    await expect(page.getByText(en)).toHaveCount(0);
    // And the save that goes through leaves no word of the refused port either.
    await timeout.fill(timeoutWas);
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect(page.getByText("Settings saved.")).toBeVisible();
    expect(await storedMixedPort(page)).toBe(free);
    await expect(field.getByLabel("HTTP/SOCKS port")).toHaveValue(String(free));
    await expect(page.getByText(en)).toHaveCount(0);
    await expect(page.locator("main")).not.toContainText(`Port ${port} `);
  });
}

const RULE_RUNS = [
  { viewport: DESKTOP, domain: "example.net", cidr: "10.1.0.0/16", position: 1 },
  // The desktop run leaves its domain rule in the list, so this one is the second.
  { viewport: PHONE, domain: "phone.example.net", cidr: "10.2.0.0/16", position: 2 },
];

for (const { viewport, domain, cidr, position } of RULE_RUNS) {
  test(`rules at ${viewport.width} px: notices say the rule in words, in English and in Chinese`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    await signIn(page, svc, "#/rules");
    const addForm = page.getByRole("form", { name: "Add rule" });
    await addForm.getByLabel("Type").selectOption("DOMAIN-SUFFIX");
    await addForm.getByLabel("Domain or address range").fill(domain);
    await addForm.getByLabel("Route").selectOption("PROXY");
    await addForm.getByRole("button", { name: "Add rule" }).click();
    const added = page
      .getByRole("status")
      .filter({ hasText: `Rule added: ${domain} and its subdomains → through the proxy.` });
    await expect(added).toBeVisible();
    await expect(added).not.toContainText(KEYWORD);
    await shootTarget(page, "rules-notice-added", added);

    await setLang(page, "zh-CN");
    const zhAdded = page
      .getByRole("status")
      .filter({ hasText: `已添加规则：${domain} 及其子域名 → 走代理。` });
    await expect(zhAdded).toBeVisible();
    await expect(zhAdded).not.toContainText(KEYWORD);
    await shootTarget(page, "rules-notice-added", zhAdded);

    // The same rule again: the refusal quotes it in words too.
    const zhForm = page.getByRole("form", { name: "添加规则" });
    await zhForm.getByLabel("域名或地址段").fill(domain);
    await zhForm.getByRole("button", { name: "添加规则" }).click();
    const dup = page.getByText(
      `列表中的第 ${position} 条规则已是 ${domain} 及其子域名 → 走代理，请修改那一条。`,
    );
    await expect(dup).toBeVisible();
    await shootTarget(page, "rules-duplicate", dup);

    // An address range switched off, then deleted, in Chinese.
    await zhForm.getByLabel("类型").selectOption("IP-CIDR");
    await zhForm.getByLabel("域名或地址段").fill(cidr);
    await zhForm.getByLabel("路由").selectOption("DIRECT");
    await zhForm.getByRole("button", { name: "添加规则" }).click();
    await expect(page.getByText(`已添加规则：${cidr} 内的地址 → 直连。`)).toBeVisible();
    const row = page.getByRole("listitem", { name: `IP-CIDR ${cidr}` });
    await row.getByRole("checkbox").uncheck();
    const off = page.getByText(`规则已停用（仍保留在列表中）：${cidr} 内的地址 → 直连。`);
    await expect(off).toBeVisible();
    await shootTarget(page, "rules-notice-off", off);
    await row.getByRole("button", { name: "删除" }).click();
    await row.getByRole("button", { name: "确认删除" }).click();
    await expect(page.getByText(`已删除规则：${cidr} 内的地址 → 直连。`)).toBeVisible();

    await setLang(page, "en");
    const deleted = page.getByText(`Rule deleted: addresses in ${cidr} → direct.`);
    await expect(deleted).toBeVisible();
    await shootTarget(page, "rules-notice-deleted", deleted);
    await expect(page.getByRole("status").filter({ hasText: KEYWORD })).toHaveCount(0);
  });
}
