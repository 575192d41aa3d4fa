/**
 * The page the window shows while the services start or after they failed: HTML without
 * scripts, in the reader's language, served as `app://gatehouse/message` (never a `data:` URL,
 * which the window refuses); the services' own English account of a failure is folded under a
 * labelled part marked as English.
 */

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}

export function messagePage(
  lang: string,
  text: string,
  details?: { label: string; text: string },
): string {
  const folded = details
    ? `<details><summary>${escapeHtml(details.label)}</summary><pre lang="en">${escapeHtml(details.text)}</pre></details>`
    : "";
  const html = `<!doctype html><html lang="${escapeHtml(lang)}"><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><title>Gatehouse</title><style>:root{color-scheme:light dark}body{font:16px system-ui,sans-serif;display:grid;place-items:center;min-height:100vh;margin:0;padding:0 24px;box-sizing:border-box}main{max-width:36em}pre{white-space:pre-wrap;font-size:13px;opacity:.8}</style><main><p>${escapeHtml(text)}</p>${folded}</main></html>`;
  return html;
}
