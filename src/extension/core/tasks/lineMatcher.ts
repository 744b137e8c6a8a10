// Finds the first output line that matches a task's notify pattern, across chunk boundaries.

/** A line longer than this is tested as it stands and then cut, so one endless line cannot grow memory. */
const MAX_LINE_CHARS = 64 * 1024;

export class LineMatcher {
  private partial = '';
  private matched = false;

  constructor(private readonly regex: RegExp) {}

  /** Returns the first matching line (without its newline) once; afterwards always undefined. */
  feed(text: string): string | undefined {
    if (this.matched) return undefined;
    const lines = (this.partial + text).split(/\r?\n|\r/);
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (this.test(line)) return line;
    }
    // A server may print its banner without a newline and then wait: test the open line too.
    const open = this.partial;
    if (open && this.test(open)) return open;
    if (this.partial.length > MAX_LINE_CHARS) this.partial = this.partial.slice(-4096);
    return undefined;
  }

  get done(): boolean {
    return this.matched;
  }

  private test(line: string): boolean {
    this.regex.lastIndex = 0;
    if (!this.regex.test(line)) return false;
    this.matched = true;
    this.partial = '';
    return true;
  }
}

/** Compiles a notify pattern; an invalid one is a clear input error, not a silent never-match. */
export function compilePattern(pattern: string): RegExp {
  return new RegExp(pattern);
}
