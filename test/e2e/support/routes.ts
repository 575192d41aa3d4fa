import type { APIResponse, Page, Route } from "@playwright/test";

/**
 * Answers the page's requests to `pattern` with the service's own answer, its JSON changed by
 * `edit` (requests `when` turns down go on unchanged). The page polls, so a request can still
 * be on its way when the test ends and its page closes: the answer is disposed under the
 * handler then. Such a request goes on unchanged and the errors of a closing page are
 * dropped; a real failure of the service still reaches the page (and the test's checks) as it
 * is, since the request goes on to the service.
 */
export async function editJson<T>(
  page: Page,
  pattern: string,
  edit: (json: T) => unknown,
  when: (route: Route) => boolean = () => true,
): Promise<void> {
  await page.route(pattern, async (route) => {
    if (!when(route)) return route.continue().catch(() => undefined);
    let response: APIResponse;
    let json: T;
    try {
      response = await route.fetch();
      json = (await response.json()) as T;
    } catch {
      return route.continue().catch(() => undefined);
    }
    await route.fulfill({ response, json: edit(json) }).catch(() => undefined);
  });
}
