// The relay's durable log of what no window received (undelivered.jsonl). Frames are appended while no window
// is attached; the next window is given them a piece at a time straight from the file, the bytes as they are
// (never read whole, never parsed), and they stay on disk until that window acknowledges them. So the relay
// holds neither the log nor the replayed lines in memory (one relay per live agent, bar 10 MB PSS): a 12 MB
// log read whole, split and parsed peaked at ~53 MB (bench/relay.bench.ts).

import * as fs from 'node:fs';

/** Bytes read from the log per piece of a replay (a longer line is read whole, up to the frame bound). */
export const replayChunkBytes = 64 * 1024;

/** A frame's JSON without its closing brace; {@link framed} closes it with its number. */
export function openFrame(frame: Record<string, unknown>): string {
  return JSON.stringify(frame).slice(0, -1);
}

/** The frame's line with its number as its last member (`…,"s":12}`), where {@link seqOf} finds it without parsing. */
export function framed(head: string, s: number): string {
  return `${head},"s":${s}}`;
}

/** The number of a line {@link framed} made, from its last bytes; -1 when it has none. */
export function seqOf(bytes: Buffer, start: number, end: number): number {
  const close = end - 1;
  if (close <= start || bytes[close] !== 0x7d) return -1;
  let i = close - 1;
  while (i > start && bytes[i] >= 0x30 && bytes[i] <= 0x39) i -= 1;
  if (i === close - 1 || i - 3 < start || bytes.toString('latin1', i - 3, i + 1) !== '"s":') return -1;
  return Number(bytes.toString('latin1', i + 1, close));
}

/** One piece of a replay: whole lines (newlines included) and, per line, its number and the file offset it ends at. */
export interface LogPiece {
  bytes: Buffer;
  /** Flat: number, end offset, number, end offset, … */
  marks: number[];
}

export class RelayLog {
  private fd: number | undefined;
  /** Offset of the first byte no window acknowledged: everything before it was delivered. */
  private start = 0;
  private end = 0;
  /** The agent's requests in the log: their id's JSON and the offset their line ends at. */
  private requests: { key: string; end: number }[] = [];

  constructor(readonly file: string) {}

  /** Bytes in the log not yet acknowledged by a window. */
  get bytes(): number {
    return this.end - this.start;
  }

  /** `request`: the id's JSON when the line carries an agent request (see {@link requestKeys}). */
  append(line: string, request?: string): void {
    if (this.fd === undefined) {
      this.fd = fs.openSync(this.file, 'a+', 0o600);
      this.end = fs.fstatSync(this.fd).size;
    }
    const data = `${line}\n`;
    fs.writeSync(this.fd, data);
    this.end += Buffer.byteLength(data);
    if (request !== undefined) this.requests.push({ key: request, end: this.end });
  }

  /** The ids (their JSON) of the agent requests in the unacknowledged part of the log. */
  requestKeys(): Set<string> {
    return new Set(this.requests.filter((r) => r.end > this.start).map((r) => r.key));
  }

  /**
   * Reads the unacknowledged part of the log as it is now, a piece of about `chunkBytes` per call; undefined
   * at its end. Nothing is appended while a window reads it (the relay sends to that window instead).
   */
  reader(chunkBytes = replayChunkBytes): () => LogPiece | undefined {
    let at = this.start;
    const stop = this.end;
    const fd = this.fd;
    return () => {
      if (fd === undefined || at >= stop) return undefined;
      const parts: Buffer[] = [];
      let lastNl = -1;
      let data: Buffer = Buffer.alloc(0);
      // A line longer than a piece is read on until its end (the relay never wrote one past the frame bound).
      while (lastNl === -1 && at < stop) {
        const piece = Buffer.allocUnsafe(Math.min(chunkBytes, stop - at));
        const got = fs.readSync(fd, piece, 0, piece.length, at);
        if (got === 0) break;
        parts.push(piece.subarray(0, got));
        data = parts.length === 1 ? parts[0] : Buffer.concat(parts);
        at += got;
        // A piece read on past `chunkBytes` ends with the long line: the lines after it are the next piece's.
        lastNl = parts.length === 1 ? data.lastIndexOf(10) : data.indexOf(10, data.length - got);
      }
      if (lastNl === -1) {
        at = stop;
        return undefined;
      }
      // What follows the last newline is read again with the next piece.
      const base = at - data.length;
      at = base + lastNl + 1;
      return { bytes: data.subarray(0, lastNl + 1), marks: lineMarks(data, lastNl, base) };
    };
  }

  /** A window acknowledged the lines up to `offset`: the next window is not given them; an emptied log is removed. */
  ackedTo(offset: number): void {
    this.start = Math.min(this.end, Math.max(this.start, offset));
    this.requests = this.requests.filter((r) => r.end > this.start);
    if (this.start < this.end || this.fd === undefined) return;
    fs.closeSync(this.fd);
    this.fd = undefined;
    fs.rmSync(this.file, { force: true });
    this.start = this.end = 0;
  }
}

function lineMarks(data: Buffer, lastNl: number, base: number): number[] {
  const marks: number[] = [];
  let s = -1;
  for (let from = 0, nl = data.indexOf(10); nl !== -1 && nl <= lastNl; from = nl + 1, nl = data.indexOf(10, from)) {
    // A line without a number (none the relay wrote) goes with the acknowledgement of the line before it.
    s = Math.max(s, seqOf(data, from, nl));
    marks.push(s, base + nl + 1);
  }
  return marks;
}
