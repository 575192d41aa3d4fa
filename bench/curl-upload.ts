import { spawn } from "node:child_process";

/** What one `curl -T` upload took and what the server answered. */
export interface CurlUpload {
  /** curl's own `time_total`, in ms: from its start of the connection to the last byte read. */
  ms: number;
  status: number;
  body: string;
}

const MARK = "\n@@curl@@";

/**
 * Uploads `file` with `curl -T` (a PUT of the file, as people script it: curl's own buffer
 * sizes, its `Expect: 100-continue` for large bodies, one connection), and answers curl's
 * timing and the server's answer.
 */
export function curlUpload(
  url: string,
  file: string,
  headers: Record<string, string> = {},
): Promise<CurlUpload> {
  const args = ["-sS", "-T", file, "-o", "-", "-w", `${MARK}%{http_code} %{time_total}`];
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}: ${value}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn("curl", args, { stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => err.push(c));
    child.on("error", reject);
    child.on("close", (code) => {
      const text = Buffer.concat(out).toString();
      const at = text.lastIndexOf(MARK);
      if (code !== 0 || at < 0) {
        reject(new Error(`curl -T exited ${code}: ${Buffer.concat(err).toString().trim()}`));
        return;
      }
      const [status, seconds] = text.slice(at + MARK.length).split(" ");
      resolve({ ms: Number(seconds) * 1000, status: Number(status), body: text.slice(0, at) });
    });
  });
}
