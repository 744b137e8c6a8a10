// Bounds the size of one stored transcript record: a larger one is stored cut, with a marker saying where the whole went.

/** Largest line the writer stores: an ACP update carrying a 100 MB file is cut to this. */
export const MAX_RECORD_BYTES = 1024 * 1024;
/** Readers parse lines up to this (twice the write bound, for the marker and older files' slack). */
export const MAX_LINE_BYTES = 2 * MAX_RECORD_BYTES;

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(n >= 10 * 1024 * 1024 ? 0 : 1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${n} bytes`;
}

export interface BoundedLine {
  /** The line to store (without its newline). */
  line: string;
  /** The record as stored: the input itself, or its cut copy. */
  record: unknown;
  /** The original line, when it was cut: the caller stores it at `fullPath` before the cut one. */
  full?: string;
}

/**
 * Serialises `record`; when the line exceeds `max` bytes, cuts its longest strings (from their end)
 * until it fits and appends a marker to each cut string, e.g. "[… truncated by Vigil: 100 MB, 1 MB
 * kept; the whole record is in <fullPath>]", and adds a `truncated` field. Records without long
 * strings (a huge array) become a marker object instead of their biggest field.
 */
export function boundRecord(record: unknown, fullPath: () => string, max = MAX_RECORD_BYTES): BoundedLine {
  const line = JSON.stringify(record);
  // Cheap first: a string of n UTF-16 units is at most 3n bytes.
  if (line.length * 3 <= max || Buffer.byteLength(line) <= max) return { line, record };
  const bytes = Buffer.byteLength(line);
  const where = fullPath();
  const marker = `[… truncated by Vigil: ${formatBytes(bytes)}, ${formatBytes(max)} kept; the whole record is in ${where}]`;
  const target = max - 4096;
  let copy = JSON.parse(line) as unknown;
  const strings = collectStrings(copy);
  strings.sort((a, b) => b.length - a.length);
  let excess = bytes - target;
  for (const s of strings) {
    if (excess <= 0) break;
    if (s.length <= 2 * marker.length) continue;
    // Characters, not bytes: a multi-byte text is cut somewhat more than needed, which is fine.
    const cut = Math.min(s.length, excess + marker.length);
    s.set(`${s.value.slice(0, s.length - cut)}${marker}`);
    excess -= cut - marker.length;
  }
  let cutLine = JSON.stringify(withTruncated(copy, bytes, max, where));
  if (Buffer.byteLength(cutLine) > max) {
    // No single long string to cut (a huge array or object): keep only the record's envelope.
    copy = envelope(copy, marker);
    cutLine = JSON.stringify(withTruncated(copy, bytes, max, where));
  }
  return { line: cutLine, record: JSON.parse(cutLine) as unknown, full: line };
}

interface StringSlot {
  value: string;
  length: number;
  set(next: string): void;
}

function collectStrings(value: unknown, out: StringSlot[] = []): StringSlot[] {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      if (typeof item === 'string') out.push(slot(item, (next) => (value[i] = next)));
      else collectStrings(item, out);
    });
  } else if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    for (const [key, item] of Object.entries(obj)) {
      if (typeof item === 'string') {
        if (key !== 'type' && key !== 'turnId') out.push(slot(item, (next) => (obj[key] = next)));
      } else collectStrings(item, out);
    }
  }
  return out;
}

function slot(value: string, set: (next: string) => void): StringSlot {
  return { value, length: value.length, set };
}

function withTruncated(record: unknown, bytes: number, kept: number, where: string): unknown {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return record;
  return { ...(record as Record<string, unknown>), truncated: { bytes, kept, fullRecord: where } };
}

/** Keeps the short top-level fields; each large one becomes the marker (an object field stays an object). */
function envelope(record: unknown, marker: string): unknown {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return { text: marker };
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(record as Record<string, unknown>)) {
    const size = JSON.stringify(item)?.length ?? 0;
    if (size <= 1024) out[key] = item;
    else if (item && typeof item === 'object' && !Array.isArray(item)) out[key] = { truncated: marker };
    else out[key] = marker;
  }
  return out;
}
