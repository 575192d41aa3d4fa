/**
 * Every body the proxy service reads from the network into memory goes through here, with a
 * limit: a release document, a checksum file, an error answer of the core. Past the limit the
 * rest is cancelled unread, so a server that sends a huge or endless body costs at most the
 * limit in memory (downloads to disk count their bytes as they stream instead).
 */

/** The body ran past `limit` bytes (declared in Content-Length, or as it came). */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The answer is larger than ${limit} bytes`);
    this.name = "BodyTooLarge";
  }
}

/** The body of `res`, at most `limit` bytes; rejects with BodyTooLarge past it. */
export async function readLimited(res: Response, limit: number): Promise<Buffer> {
  if (Number(res.headers.get("content-length")) > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw new BodyTooLarge(limit);
  }
  if (!res.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** Drops an unwanted body without reading it (frees the connection). */
export async function discardBody(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined);
}
