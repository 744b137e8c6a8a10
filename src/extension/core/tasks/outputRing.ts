// In-memory output of a task: keeps the last `byteLimit` UTF-8 bytes, dropping whole characters from the start.

/** Chunks smaller than this are merged so that many tiny writes do not cost one object each. */
const COALESCE_BYTES = 8 * 1024;

interface Chunk {
  text: string;
  bytes: number;
}

export class OutputRing {
  private chunks: Chunk[] = [];
  private head = 0;
  private totalBytes = 0;
  private dropped = false;

  constructor(readonly byteLimit: number) {
    if (!Number.isFinite(byteLimit) || byteLimit < 1) throw new RangeError(`byteLimit must be a positive number, got ${byteLimit}`);
  }

  get truncated(): boolean {
    return this.dropped;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /** Marks the output as incomplete without dropping anything (e.g. a gap in the log after a reload). */
  markTruncated(): void {
    this.dropped = true;
  }

  push(text: string): void {
    if (text.length === 0) return;
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes >= this.byteLimit) {
      // The new text alone fills the buffer: keep only its tail.
      this.chunks = [];
      this.head = 0;
      this.totalBytes = 0;
      this.dropped = true;
      const tail = dropLeadingBytes(text, bytes - this.byteLimit);
      this.append({ text: tail, bytes: Buffer.byteLength(tail, 'utf8') });
      return;
    }
    this.append({ text, bytes });
    this.trim();
  }

  toString(): string {
    return this.chunks.slice(this.head).map((c) => c.text).join('');
  }

  /** The last `maxChars` characters (never splitting a surrogate pair). */
  tail(maxChars: number): { text: string; truncated: boolean } {
    const all = this.toString();
    if (all.length <= maxChars) return { text: all, truncated: this.dropped };
    let start = all.length - maxChars;
    const code = all.charCodeAt(start);
    if (code >= 0xdc00 && code <= 0xdfff) start += 1;
    return { text: all.slice(start), truncated: true };
  }

  private append(chunk: Chunk): void {
    const last = this.chunks.length > this.head ? this.chunks[this.chunks.length - 1] : undefined;
    if (last && last.bytes + chunk.bytes <= COALESCE_BYTES) {
      last.text += chunk.text;
      last.bytes += chunk.bytes;
    } else {
      this.chunks.push(chunk);
    }
    this.totalBytes += chunk.bytes;
  }

  private trim(): void {
    while (this.totalBytes > this.byteLimit) {
      const first = this.chunks[this.head];
      const excess = this.totalBytes - this.byteLimit;
      this.dropped = true;
      if (first.bytes <= excess) {
        this.totalBytes -= first.bytes;
        this.head += 1;
        continue;
      }
      const kept = dropLeadingBytes(first.text, excess);
      const keptBytes = Buffer.byteLength(kept, 'utf8');
      this.totalBytes -= first.bytes - keptBytes;
      this.chunks[this.head] = { text: kept, bytes: keptBytes };
    }
    // Compact the consumed prefix now and then instead of shifting the array on every drop.
    if (this.head > 64 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }
}

/** Drops at least `n` bytes from the start of `text`, moving forward to the next character boundary. */
export function dropLeadingBytes(text: string, n: number): string {
  if (n <= 0) return text;
  const buf = Buffer.from(text, 'utf8');
  let start = Math.min(n, buf.length);
  // UTF-8 continuation bytes look like 10xxxxxx: skip them so the result starts on a whole character.
  while (start < buf.length && (buf[start] & 0xc0) === 0x80) start += 1;
  return buf.subarray(start).toString('utf8');
}
