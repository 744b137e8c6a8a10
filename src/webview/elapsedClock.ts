// <vigil-elapsed since until>: a duration that ticks by itself once a second while open-ended, so a
// running tool or task updates without the transcript re-rendering. It is a timer that is never
// announced: inside the transcript (a log, polite by default) a ticking clock would otherwise be read
// out every second.

import { LitElement } from 'lit';
import { formatDuration } from '../shared/duration';

const live = new Set<VigilElapsed>();
let timer: ReturnType<typeof setInterval> | undefined;

function track(el: VigilElapsed, on: boolean): void {
  if (on) live.add(el);
  else live.delete(el);
  if (live.size > 0 && timer === undefined) {
    timer = setInterval(() => {
      for (const e of live) e.requestUpdate();
    }, 1000);
  } else if (live.size === 0 && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
}

export class VigilElapsed extends LitElement {
  static override properties = { since: { type: Number }, until: { type: Number } };
  declare since: number | undefined;
  declare until: number | undefined;

  // Light DOM: the text is styled and selected like the rest of the transcript.
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // role=timer is off by default; aria-live is spelled out for readers that only honour the attribute.
    if (!this.hasAttribute('role')) this.setAttribute('role', 'timer');
    this.setAttribute('aria-live', 'off');
    track(this, this.until === undefined);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    track(this, false);
  }

  protected override updated(): void {
    if (this.isConnected) track(this, this.until === undefined);
  }

  protected override render(): string {
    if (this.since === undefined) return '';
    return formatDuration((this.until ?? Date.now()) - this.since);
  }
}

if (!customElements.get('vigil-elapsed')) customElements.define('vigil-elapsed', VigilElapsed);
