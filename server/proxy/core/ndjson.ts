/** The longest record kept: a log line or a traffic sample is far shorter. */
export const NDJSON_RECORD_LIMIT = 1024 * 1024;

/**
 * Splits a byte stream into newline-delimited JSON records. Chunks do not align with
 * records, so the tail of each chunk is kept until its `\n` arrives; a record that runs past
 * the limit is dropped as it comes (up to its newline), so a stream that never sends one
 * cannot grow the buffer.
 */
export class NdjsonSplitter {
  private buffer = "";
  private readonly decoder = new TextDecoder();
  /** Inside a record too long to keep: everything up to the next newline is dropped. */
  private skipping = false;

  constructor(private readonly limit = NDJSON_RECORD_LIMIT) {}

  /** Feeds one chunk; returns the complete records it finished. Bad lines are skipped. */
  push(chunk: Uint8Array): unknown[] {
    let text = this.decoder.decode(chunk, { stream: true });
    if (this.skipping) {
      const nl = text.indexOf("\n");
      if (nl < 0) return [];
      this.skipping = false;
      text = text.slice(nl + 1);
    }
    this.buffer += text;
    const out: unknown[] = [];
    let nl = this.buffer.indexOf("\n");
    while (nl >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (line && line.length <= this.limit) {
        try {
          out.push(JSON.parse(line));
        } catch {
          // one malformed record must not end the stream
        }
      }
      nl = this.buffer.indexOf("\n");
    }
    if (this.buffer.length > this.limit) {
      this.buffer = "";
      this.skipping = true;
    }
    return out;
  }

  /** The record left without a final newline when the stream ends, if any. */
  end(): unknown[] {
    const line = (this.buffer + this.decoder.decode()).trim();
    this.buffer = "";
    if (!line || this.skipping || line.length > this.limit) return [];
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  }
}
