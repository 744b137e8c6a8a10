// Which slice of the transcript is in the DOM. Long sessions keep only the tail, plus what the person
// scrolls to, rendered: a bounded number of entries whatever the transcript's length. DOM-free.

export interface WindowRange {
  start: number;
  end: number;
}

export interface WindowSizes {
  /** Entries rendered when a snapshot arrives: enough to fill a tall view. */
  initial: number;
  /** Entries added per step when scrolling towards either end. */
  step: number;
  /** Most entries in the DOM at once; the far side is dropped beyond it. */
  max: number;
  /**
   * Entries rendered for the first paint of a snapshot's tail (then `fill`ed while the view is not
   * full, and up to `initial` once painted); absent: `initial` at once.
   */
  first?: number;
}

export const defaultWindowSizes: WindowSizes = { initial: 30, step: 40, max: 240, first: 12 };

export class TranscriptWindow {
  start = 0;
  end = 0;
  /** Following the tail: new entries extend the window and the view stays scrolled to the bottom. */
  followTail = true;

  constructor(private readonly sizes: WindowSizes = defaultWindowSizes) {}

  /** A new snapshot: show its tail, or the neighbourhood of `anchor` when restoring a scroll position. */
  reset(length: number, anchor?: number): void {
    if (anchor !== undefined && anchor >= 0 && anchor < length) {
      this.start = Math.max(0, anchor - Math.floor(this.sizes.initial / 2));
      this.end = Math.min(length, this.start + this.sizes.initial);
      this.followTail = false;
      return;
    }
    this.end = length;
    this.start = Math.max(0, length - this.sizes.initial);
    this.followTail = true;
  }

  /** A snapshot's tail, for its first paint: only the newest `first` entries, following the tail. */
  openAtTail(length: number): void {
    this.end = length;
    this.start = Math.max(0, length - (this.sizes.first ?? this.sizes.initial));
    this.followTail = true;
  }

  /**
   * Adds up to `count` older entries (by default `first` more), never beyond `initial` entries in all.
   * Returns whether any was added.
   */
  fill(count = this.sizes.first ?? this.sizes.initial): boolean {
    const start = Math.max(0, this.end - this.sizes.initial, this.start - count);
    if (start >= this.start) return false;
    this.start = start;
    return true;
  }

  /** Entries were appended (or replaced in place). Returns whether the range changed. */
  grow(previousLength: number, length: number): boolean {
    if (length < previousLength || this.end > length) {
      this.reset(length);
      return true;
    }
    if (length === previousLength) return false;
    // New entries show up if the window reaches the old tail; otherwise the "newer" edge covers them.
    if (this.end !== previousLength) return false;
    this.end = length;
    if (this.end - this.start > this.sizes.max) {
      // Following: drop the oldest. Reading further up: keep what is read, stop growing at the cap.
      if (this.followTail) this.start = this.end - this.sizes.max;
      else this.end = this.start + this.sizes.max;
    }
    return true;
  }

  /** Scrolled near the top: render earlier entries. */
  older(): boolean {
    if (this.start === 0) return false;
    this.start = Math.max(0, this.start - this.sizes.step);
    if (this.end - this.start > this.sizes.max) {
      this.end = this.start + this.sizes.max;
      this.followTail = false;
    }
    return true;
  }

  /** Scrolled near the bottom of what is rendered: render later entries. */
  newer(length: number): boolean {
    if (this.end >= length) return false;
    this.end = Math.min(length, this.end + this.sizes.step);
    if (this.end - this.start > this.sizes.max) this.start = this.end - this.sizes.max;
    return true;
  }

  /** `count` entries were inserted before the first one (history arrived): keep showing the same ones. */
  shift(count: number): void {
    this.start += count;
    this.end += count;
  }

  jumpToTail(length: number): void {
    this.reset(length);
  }

  get range(): WindowRange {
    return { start: this.start, end: this.end };
  }
}
