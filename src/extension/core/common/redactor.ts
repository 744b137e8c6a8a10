// The one redactor: every secret Vigil knows (API keys, secret `vigil.agent` and MCP env values, auth values
// given to agents), in every form it is echoed in (secretForms.ts), cut out of everything Vigil stores or shows.
// Plain string search: no pattern is built from a secret.

import { secretForms } from './secretForms';

/** What a secret is replaced with. */
export const REDACTED = '«redacted»';

/**
 * Values shorter than this are not treated as secrets: an env value like `1`, `true` or `debug` would
 * otherwise shred ordinary text, and a real key or token is never that short.
 */
export const MIN_SECRET_CHARS = 8;

export class Redactor {
  /** Longest first, so one pass per secret finds the widest occurrence; ranges are merged anyway. */
  private secrets: string[] = [];
  /** The secrets (longest first) by their first character: what a held tail is checked against. */
  private byFirst = new Map<number, string[]>();
  private readonly known = new Set<string>();
  private longest = 0;

  /**
   * Adds secrets; they apply to every redaction from now on. Secrets are never removed: a rotated or
   * deleted key may still be echoed by an agent or a provider, and keeping it costs nothing.
   */
  add(values: Iterable<string | null | undefined>): void {
    let changed = false;
    for (const raw of values) {
      if (typeof raw !== 'string') continue;
      for (const value of new Set([raw, raw.trim()])) {
        if (value.length < MIN_SECRET_CHARS) continue;
        for (const form of secretForms(value)) {
          if (form.length < MIN_SECRET_CHARS || this.known.has(form)) continue;
          this.known.add(form);
          changed = true;
        }
      }
    }
    if (!changed) return;
    this.secrets = [...this.known].sort((a, b) => b.length - a.length);
    this.longest = this.secrets[0]?.length ?? 0;
    this.byFirst = new Map();
    for (const secret of this.secrets) {
      const first = secret.charCodeAt(0);
      const list = this.byFirst.get(first);
      if (list) list.push(secret);
      else this.byFirst.set(first, [secret]);
    }
  }

  get isEmpty(): boolean {
    return this.secrets.length === 0;
  }

  /** The text with every occurrence of every secret replaced by one marker per merged span. */
  redact(text: string): string {
    return this.redactFrom(text, 0);
  }

  /**
   * `text.slice(from)` redacted with what comes before it in view: the part before `from` was shown already,
   * so a secret that starts there and ends after `from` becomes a marker at the start of the result.
   */
  redactFrom(text: string, from: number): string {
    if (this.secrets.length === 0 || text.length < MIN_SECRET_CHARS) return text.slice(from);
    const ranges = this.occurrences(text, 0);
    if (ranges.length === 0) return text.slice(from);
    ranges.sort((a, b) => a[0] - b[0]);
    let out = '';
    let cursor = from;
    let i = 0;
    while (i < ranges.length) {
      const start = ranges[i][0];
      let end = ranges[i][1];
      i += 1;
      // Overlapping or touching occurrences (of one secret or of two) become one marker.
      while (i < ranges.length && ranges[i][0] <= end) {
        end = Math.max(end, ranges[i][1]);
        i += 1;
      }
      if (end <= from) continue;
      out += text.slice(cursor, Math.max(start, from)) + REDACTED;
      cursor = end;
    }
    return out + text.slice(cursor);
  }

  /**
   * A copy of a JSON-like value with every string (and object key) redacted; parts without a secret
   * are shared, not copied. Class instances other than plain objects and arrays are left as they are.
   */
  redactValue<T>(value: T): T {
    if (this.secrets.length === 0) return value;
    return this.walk(value, new Set()) as T;
  }

  /** A redactor for text that arrives in pieces, where a secret may be split across two pieces. */
  stream(): StreamRedactor {
    return new StreamRedactor(this);
  }

  /**
   * Where the part of `text` that may still become a secret starts: the earliest suffix that is a
   * proper prefix of a secret, moved back so that no complete occurrence is cut. `text.length` when
   * nothing needs holding.
   */
  holdStart(text: string): number {
    const n = text.length;
    if (this.secrets.length === 0 || n === 0) return n;
    let hold = n;
    for (let i = Math.max(0, n - this.longest + 1); i < n && hold === n; i += 1) {
      const candidates = this.byFirst.get(text.charCodeAt(i));
      if (!candidates) continue;
      for (const secret of candidates) {
        if (secret.length <= n - i) break;
        if (startsWithRest(text, i, secret)) {
          hold = i;
          break;
        }
      }
    }
    // Never cut through an occurrence that is complete already: hold it whole, it is redacted next time.
    for (let moved = true; moved && hold > 0; ) {
      moved = false;
      for (const [start, end] of this.occurrences(text, Math.max(0, hold - this.longest + 1))) {
        if (start < hold && end > hold) {
          hold = start;
          moved = true;
        }
      }
    }
    return hold;
  }

  private occurrences(text: string, from: number): Array<[number, number]> {
    const ranges: Array<[number, number]> = [];
    for (const secret of this.secrets) {
      for (let at = text.indexOf(secret, from); at !== -1; at = text.indexOf(secret, at + 1)) ranges.push([at, at + secret.length]);
    }
    return ranges;
  }

  private walk(value: unknown, seen: Set<object>): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (value === null || typeof value !== 'object' || seen.has(value)) return value;
    if (Array.isArray(value)) {
      seen.add(value);
      let copy: unknown[] | undefined;
      value.forEach((item, i) => {
        const next = this.walk(item, seen);
        if (next !== item) (copy ??= value.slice())[i] = next;
      });
      seen.delete(value);
      return copy ?? value;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) return value;
    seen.add(value);
    let copy: Record<string, unknown> | undefined;
    const entries = Object.entries(value as Record<string, unknown>);
    for (const [key, item] of entries) {
      const nextKey = this.redact(key);
      const next = this.walk(item, seen);
      if (next === item && nextKey === key) continue;
      if (!copy) {
        // Rebuilt in the original key order, so a redacted key does not move its entry.
        copy = {};
        for (const [k, v] of entries) copy[this.redact(k)] = v;
      }
      copy[nextKey] = next;
    }
    seen.delete(value);
    return copy ?? value;
  }
}

/** Whether `text`, from `at` to its end, is how `secret` begins (the first characters already match). */
function startsWithRest(text: string, at: number, secret: string): boolean {
  for (let j = 1; at + j < text.length; j += 1) if (text.charCodeAt(at + j) !== secret.charCodeAt(j)) return false;
  return true;
}

/**
 * Redacts a stream of pieces: each `push` returns what is safe to store or show now, holding back only
 * a tail that could be the start of a secret (at most one secret's length, and only while it matches).
 * `release` shows the held tail but keeps matching it, `flush` shows it and forgets it.
 */
export class StreamRedactor {
  /** The tail that may still become a secret; its first `shown` characters were released already. */
  private held = '';
  private shown = 0;

  constructor(private readonly redactor: Redactor) {}

  /** Whether part of the held tail has not been shown yet. */
  get pending(): boolean {
    return this.held.length > this.shown;
  }

  /** How long the held tail is, shown or not: how much of a secret's start a `release` may have shown. */
  get heldLength(): number {
    return this.held.length;
  }

  push(piece: string): string {
    const text = this.held + piece;
    const hold = this.redactor.holdStart(text);
    const out = hold > this.shown ? this.redactor.redactFrom(text.slice(0, hold), this.shown) : '';
    this.shown = Math.max(0, this.shown - hold);
    this.held = text.slice(hold);
    return out;
  }

  /**
   * Returns the part of the held tail not shown yet, and keeps the tail: if the next piece completes a
   * secret that started in it, the rest of that secret is still cut (its released start stays shown).
   */
  release(): string {
    const out = this.redactor.redactFrom(this.held, this.shown);
    this.shown = this.held.length;
    return out;
  }

  flush(): string {
    const out = this.redactor.redactFrom(this.held, this.shown);
    this.held = '';
    this.shown = 0;
    return out;
  }
}
