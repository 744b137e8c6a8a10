// Where the session view's transcript is scrolled: it follows the tail while the reader is at it, keeps an
// entry in place when the rendered slice changes above it, and renders the next slice when the reader nears
// an edge of what is in the DOM (transcriptWindow.ts decides which entries that slice holds).

import type { TranscriptWindow } from './transcriptWindow';

/** Distance in px from an edge of the rendered slice at which the next slice is rendered. */
const edgePx = 800;
/** The first paint's entries are enough once they reach this far above the top of the view. */
const fullViewMarginPx = 200;

export interface TranscriptScrollDeps {
  root: HTMLElement;
  window: TranscriptWindow;
  /** How many entries the session has (rendered or not). */
  entryCount(): number;
  rerender(): void;
  /** The reader scrolled (the position is saved for a reload). */
  scrolled(): void;
}

export class TranscriptScroll {
  /** Keeps an entry at the same place on screen across a change of the rendered slice. */
  anchor: { id: string; offset: number } | undefined;
  private lastScrollTop = 0;
  private edgeCheckQueued = false;
  private readonly resizeObserver = new ResizeObserver(() => this.pinToTail());
  private observed: Element | undefined;

  constructor(private readonly d: TranscriptScrollDeps) {}

  /** The scrolling transcript element, once rendered. */
  transcript(): HTMLElement | null {
    return this.d.root.querySelector<HTMLElement>('#transcript');
  }

  /** The rendered entries cover the view, the older edge scrolled out of it (the view is pinned to the tail). */
  viewFull(): boolean {
    const t = this.transcript();
    return !t || !this.d.window.followTail || t.scrollTop >= fullViewMarginPx;
  }

  /** After a render: keeps following the tail, or the anchored entry in place; then checks the edges. */
  afterRender(): void {
    const t = this.transcript();
    if (!t) return;
    const entries = t.querySelector('#entries');
    if (entries && entries !== this.observed) {
      // Content also grows without a render of ours (custom elements upgrading, a card opened).
      if (this.observed) this.resizeObserver.unobserve(this.observed);
      this.resizeObserver.observe(entries);
      this.observed = entries;
    }
    if (this.d.window.followTail) {
      this.pinToTail();
    } else if (this.anchor) {
      const el = t.querySelector<HTMLElement>(`[data-entry-id="${CSS.escape(this.anchor.id)}"]`);
      if (el) t.scrollTop = el.offsetTop - this.anchor.offset;
    }
    this.anchor = undefined;
    this.queueEdgeCheck();
  }

  pinToTail(): void {
    const t = this.transcript();
    if (!t || !this.d.window.followTail) return;
    t.scrollTop = t.scrollHeight;
    this.lastScrollTop = t.scrollTop;
  }

  /** The reader scrolled: follow the tail again at its end, stop following when they scroll up. */
  onScroll(): void {
    const t = this.transcript();
    if (!t) return;
    const atBottom = t.scrollHeight - t.scrollTop - t.clientHeight < 24;
    const scrolledUp = t.scrollTop < this.lastScrollTop - 2;
    this.lastScrollTop = t.scrollTop;
    // Only the reader scrolling up stops following; content growing under us does not.
    const follow = this.d.window.end === this.d.entryCount() && (atBottom || (this.d.window.followTail && !scrolledUp));
    if (follow !== this.d.window.followTail) {
      this.d.window.followTail = follow;
      this.d.rerender();
    }
    this.queueEdgeCheck();
    this.d.scrolled();
  }

  /** Renders the next slice when the reader nears an edge of what is in the DOM. */
  queueEdgeCheck(): void {
    if (this.edgeCheckQueued) return;
    this.edgeCheckQueued = true;
    requestAnimationFrame(() => {
      this.edgeCheckQueued = false;
      const t = this.transcript();
      if (!t) return;
      const n = this.d.entryCount();
      if (t.scrollTop < edgePx && this.d.window.start > 0) {
        this.captureAnchor();
        if (this.d.window.older()) this.d.rerender();
      } else if (t.scrollHeight - t.scrollTop - t.clientHeight < edgePx && this.d.window.end < n) {
        this.captureAnchor();
        if (this.d.window.newer(n)) this.d.rerender();
      }
    });
  }

  /** Remembers the first entry on screen and its offset from the top of the viewport. */
  captureAnchor(): void {
    const t = this.transcript();
    if (!t || this.d.window.followTail) return;
    for (const el of t.querySelectorAll<HTMLElement>('[data-entry-id]')) {
      if (el.offsetTop + el.offsetHeight > t.scrollTop) {
        this.anchor = { id: el.dataset.entryId!, offset: el.offsetTop - t.scrollTop };
        return;
      }
    }
  }

  jumpToLatest(): void {
    this.d.window.jumpToTail(this.d.entryCount());
    this.d.rerender();
  }
}
