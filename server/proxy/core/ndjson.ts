/**
 * Splits a byte stream into newline-delimited JSON records. Chunks do not align with
 * records, so the tail of each chunk is kept until its `\n` arrives.
 */
export class NdjsonSplitter {
  private buffer = "";
  private readonly decoder = new TextDecoder();

  /** Feeds one chunk; returns the complete records it finished. Bad lines are skipped. */
  push(chunk: Uint8Array): unknown[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    const out: unknown[] = [];
    let nl = this.buffer.indexOf("\n");
    while (nl >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (line) {
        try {
          out.push(JSON.parse(line));
        } catch {
          // one malformed record must not end the stream
        }
      }
      nl = this.buffer.indexOf("\n");
    }
    return out;
  }

  /** The record left without a final newline when the stream ends, if any. */
  end(): unknown[] {
    const line = (this.buffer + this.decoder.decode()).trim();
    this.buffer = "";
    if (!line) return [];
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  }
}
