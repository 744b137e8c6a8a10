// The session view: holds the last snapshot the host sent (folded with its events), renders it with
// lit, and keeps only a window of the transcript in the DOM. Nothing here outlives a reload except
// the draft and the scroll position, which VS Code keeps for us. Where the transcript is scrolled:
// transcriptScroll.ts; the header: sessionHeader.ts.

import { html, nothing, render, type TemplateResult } from 'lit';
import { guard } from 'lit/directives/guard.js';
import { repeat } from 'lit/directives/repeat.js';
import { emptySnapshot, type EntryView, type HostEvent, type SessionSnapshot } from '../shared/sessionView';
import { lastExchange } from '../shared/lastExchange';
import { MessageEdits, ReplacedEntries, turnActions } from './messageEdit';
import { applyHostEvent, findEntry, isTurnLive } from '../shared/sessionViewReducer';
import type { HostMessage } from '../shared/webviewProtocol';
import type { PromptMention } from '../shared/promptContext';
import { approvalsView } from './approvalsView';
import { CommandCompletions } from './commandCompletions';
import { composer } from './composer';
import { ComposerAttachments } from './composerAttachments';
import { ElicitationForms, elicitationsView } from './elicitationView';
import { renderEntry } from './entryTemplates';
import type { HostBridge, Intent, ViewState } from './hostBridge';
import { noticesView } from './noticesView';
import { sessionHeader } from './sessionHeader';
import { statusLine } from './statusLine';
import { taskStrip } from './taskStrip';
import { restrictedLine } from './restrictedLine';
import { TranscriptScroll } from './transcriptScroll';
import { TranscriptWindow } from './transcriptWindow';
import type { ViewActions } from './viewActions';

/** Events held while history is on its way; beyond this a fresh snapshot is cheaper. */
const maxQueuedEvents = 5_000;

export class SessionApp {
  private state: SessionSnapshot = emptySnapshot();
  /** Sequence number of the last applied host message; -1 until the first snapshot. */
  private seq = -1;
  private readonly window = new TranscriptWindow();
  private draft: string;
  private hostError: string | undefined;
  private renderQueued = false;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private paintMarkPending = false;
  /** Scroll position to restore after a webview reload; used by the first snapshot only. */
  private restore: ViewState | undefined;
  private readonly pendingPrompts = new Map<string, string>();
  private readonly completions = new CommandCompletions();
  /** What was attached to the prompts in flight: put back as chips if the host refuses one. */
  private readonly pendingMentions = new Map<string, PromptMention[]>();
  private readonly context: ComposerAttachments;
  private readonly forms = new ElicitationForms();
  /** Where the cursor goes after a pick replaced the `@query`. */
  private cursorAfterRender: number | undefined;
  private readonly actions: ViewActions;
  /** The older entries a tail snapshot omitted: asked for after its first paint; events wait meanwhile. */
  private history: { snapshotSeq: number; omitted: number; requestId?: string; queued: HostEvent[] } | undefined;
  private afterPaint: (() => void) | undefined;
  /** The snapshot whose first slice is rendered only as far as it fills the view, until it is painted. */
  private filling: number | undefined;
  private readonly scroll: TranscriptScroll;
  private readonly edits = new MessageEdits({
    post: (intent) => this.post(intent),
    sessionId: () => this.state.session?.id,
    rerender: () => this.scheduleRender(),
    sent: () => {
      this.window.followTail = true;
      this.scheduleRender();
    },
  });
  private readonly startEdit = (entry: Extract<EntryView, { kind: 'user' }>) => this.edits.start(entry);
  private readonly replaced = new ReplacedEntries();

  constructor(
    private readonly root: HTMLElement,
    private readonly bridge: HostBridge,
  ) {
    const saved = bridge.viewState;
    this.draft = saved.draft ?? '';
    this.restore = saved;
    this.scroll = new TranscriptScroll({
      root,
      window: this.window,
      entryCount: () => this.state.entries.length,
      rerender: () => this.scheduleRender(),
      scrolled: () => this.saveSoon(),
    });
    this.actions = { post: (intent) => this.post(intent), sessionId: () => this.state.session?.id, workspaceRoot: () => this.state.session?.cwd };
    this.context = new ComposerAttachments({
      post: (intent) => this.post(intent),
      sessionId: () => this.state.session?.id,
      rerender: () => this.scheduleRender(),
      draft: () => this.draft,
      replaceDraft: (text, cursor) => {
        this.draft = text;
        this.cursorAfterRender = cursor;
        this.saveSoon();
        this.scheduleRender();
      },
      focusInput: () => this.focusInput(),
    });
  }

  start(): void {
    this.bridge.listen((message) => this.onHostMessage(message));
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && isTurnLive(this.state.turn.phase)) {
        e.preventDefault();
        this.stop();
      }
    });
    this.renderNow();
    // Handshake: the host posts nothing before this, and answers it with a full snapshot.
    this.bridge.post({ type: 'ready' });
  }

  private onHostMessage(message: HostMessage): void {
    switch (message.type) {
      case 'snapshot':
        this.applySnapshot(message.seq, message.snapshot, message.omitted ?? 0);
        return;
      case 'event': {
        if (this.seq < 0 || message.seq <= this.seq) return;
        // A gap means a lost message: the only safe state is a fresh snapshot.
        if (message.seq !== this.seq + 1) return this.resync();
        this.seq = message.seq;
        if (this.history) {
          // Events may touch omitted entries; they apply once the history is in place.
          this.history.queued.push(message.event);
          if (this.history.queued.length > maxQueuedEvents) this.resync();
          return;
        }
        this.applyEvent(message.event);
        this.scheduleRender();
        return;
      }
      case 'history': {
        const h = this.history;
        if (!h || h.snapshotSeq !== message.snapshotSeq) return;
        if (message.entries.length !== h.omitted) return this.resync();
        this.history = undefined;
        this.state = { ...this.state, entries: message.entries.concat(this.state.entries) };
        this.window.shift(h.omitted);
        for (const event of h.queued) this.applyEvent(event);
        this.scroll.queueEdgeCheck();
        this.scheduleRender();
        return;
      }
      case 'pong':
        return;
      case 'mentions':
        if (this.context.picker.results(message.requestId, message.items, message.note, message.images)) this.scheduleRender();
        return;
      case 'addMentions':
        this.context.added(message.requestId, message.items, message.note);
        return;
      case 'focusInput':
        this.focusInput();
        return;
      case 'error': {
        if (this.history && message.requestId === this.history.requestId) return this.resync();
        this.hostError = message.message;
        const draft = message.requestId !== undefined ? this.pendingPrompts.get(message.requestId) : undefined;
        const mentions = message.requestId !== undefined ? this.pendingMentions.get(message.requestId) : undefined;
        if (draft !== undefined && this.draft === '') this.draft = draft;
        if (mentions && this.context.attachments.chips.length === 0) this.context.attachments.restore(mentions);
        this.edits.failed(message.requestId);
        this.scheduleRender();
        return;
      }
    }
  }

  private applyEvent(event: HostEvent): void {
    const before = this.state.entries.length;
    this.state = applyHostEvent(this.state, event);
    this.window.grow(before, this.state.entries.length);
  }

  private resync(): void {
    this.seq = -1;
    this.history = undefined;
    this.bridge.post({ type: 'ready' });
  }

  private applySnapshot(seq: number, snapshot: SessionSnapshot, omitted: number): void {
    const sameSession = this.seq >= 0 && snapshot.session?.id === this.state.session?.id;
    this.seq = seq;
    this.state = snapshot;
    this.hostError = undefined;
    this.history = omitted > 0 ? { snapshotSeq: seq, omitted, queued: [] } : undefined;
    this.afterPaint = () => this.afterFirstPaint(seq);
    this.filling = undefined;
    const restore = this.restore;
    this.restore = undefined;
    const anchorIndex = restore?.followTail === false && restore.anchorEntryId ? findEntry(snapshot.entries, restore.anchorEntryId) : -1;
    if (anchorIndex >= 0) {
      this.window.reset(snapshot.entries.length, anchorIndex);
      this.scroll.anchor = { id: restore!.anchorEntryId!, offset: restore!.anchorOffset ?? 0 };
    } else if (!sameSession || this.window.followTail) {
      this.window.openAtTail(snapshot.entries.length);
      this.filling = seq;
    } else {
      // A resync of the session on screen: keep the reader where they are.
      this.scroll.captureAnchor();
      this.window.grow(this.window.end, snapshot.entries.length);
    }
    this.paintMarkPending = true;
    this.renderNow();
    // Only what fills the view is rendered before the first paint; the rest of the slice follows it.
    while (this.filling === seq && !this.scroll.viewFull() && this.window.fill()) this.renderNow();
  }

  /**
   * After a snapshot's first paint: the rest of its first slice (off screen, above), then the history
   * it omitted, so moving and validating either never delays the tail.
   */
  private afterFirstPaint(seq: number): void {
    if (this.filling === seq) {
      this.filling = undefined;
      if (this.window.fill(Number.POSITIVE_INFINITY)) {
        this.scroll.captureAnchor();
        this.renderNow();
      }
      this.scroll.queueEdgeCheck();
    }
    if (this.history?.snapshotSeq === seq) this.history.requestId = this.post({ type: 'history', snapshotSeq: seq });
  }

  private post(intent: Intent): string {
    return this.bridge.post(intent);
  }

  private send(): void {
    const text = this.draft.trim();
    if ((text === '' && this.context.attachments.chips.length === 0) || isTurnLive(this.state.turn.phase)) return;
    const mentions = this.context.sent();
    const id = this.post({ type: 'prompt', sessionId: this.state.session?.id, text, ...(mentions.length > 0 ? { mentions } : {}) });
    this.pendingPrompts.set(id, this.draft);
    if (this.pendingPrompts.size > 20) this.pendingPrompts.delete(this.pendingPrompts.keys().next().value as string);
    if (mentions.length > 0) this.pendingMentions.set(id, mentions);
    if (this.pendingMentions.size > 5) this.pendingMentions.delete(this.pendingMentions.keys().next().value as string);
    this.draft = '';
    this.hostError = undefined;
    this.bridge.saveViewState({ draft: '' });
    this.window.followTail = true;
    this.scheduleRender();
  }

  private stop(): void {
    this.post({ type: 'stop', sessionId: this.state.session?.id });
  }

  private scheduleRender(): void {
    if (this.renderQueued) return;
    this.renderQueued = true;
    // One render per frame however many chunks arrived: streaming stays smooth.
    requestAnimationFrame(() => {
      this.renderQueued = false;
      this.renderNow();
    });
  }

  private renderNow(): void {
    render(this.template(), this.root);
    this.afterRender();
    if (this.paintMarkPending) {
      this.paintMarkPending = false;
      const seq = this.seq;
      // After the next frame has been produced: what the person sees, not just what is in the DOM.
      const then = this.afterPaint;
      this.afterPaint = undefined;
      requestAnimationFrame(() =>
        setTimeout(() => {
          performance.mark('vigil:tail-painted');
          this.root.dataset.paintedSeq = String(seq);
          then?.();
        }, 0),
      );
    }
  }

  private template(): TemplateResult {
    const s = this.state;
    const live = isTurnLive(s.turn.phase);
    const { start, end } = this.window;
    const slice = s.entries.slice(start, end);
    const found = lastExchange(s);
    const exchange = found.ok ? found.exchange : undefined;
    this.root.dataset.phase = s.turn.phase;
    this.root.dataset.sessionId = s.session?.id ?? '';
    return html`
      ${sessionHeader(s, (intent) => this.post(intent))}
      ${restrictedLine(s.session?.restricted, this.actions)}
      <div id="transcript" role="log" aria-label="Transcript" @scroll=${() => this.scroll.onScroll()}>
        ${s.session === null && s.entries.length === 0
          ? html`<div id="empty-state">No session is open. Send a message to start one, or open an earlier session.</div>`
          : nothing}
        <div id="entries">
          ${this.history
            ? html`<div id="older-edge" class="edge">Loading ${this.history.omitted} earlier entries…</div>`
            : start > 0 ? html`<div id="older-edge" class="edge">${start} earlier ${start === 1 ? 'entry' : 'entries'}</div>` : nothing}
          ${repeat(slice, (e) => e.id, (e) => this.entry(e, live, exchange?.can.edit === true && e.id === exchange.user.id))}
          ${end < s.entries.length ? html`<div id="newer-edge" class="edge">${s.entries.length - end} newer</div>` : turnActions(exchange, this.edits)}
        </div>
      </div>
      ${!this.window.followTail
        ? html`<button type="button" class="button secondary" id="jump-to-latest" @click=${() => this.scroll.jumpToLatest()}><span class="codicon codicon-arrow-down" aria-hidden="true"></span>Latest</button>`
        : nothing}
      ${statusLine(s.turn)}
      ${noticesView(s.notices, s.turn, this.actions)}
      ${this.hostError
        ? html`<div class="notice-banner error-notice host-error" role="alert"><span class="codicon codicon-error"></span>
            <span class="notice-text">${this.hostError}</span>
            <button type="button" class="button secondary dismiss" @click=${() => { this.hostError = undefined; this.scheduleRender(); }}>Dismiss</button></div>`
        : nothing}
      ${approvalsView(s.approvals, this.actions)}
      ${elicitationsView(s.elicitations, this.forms, this.actions, () => this.scheduleRender())}
      ${taskStrip(s.tasks, this.actions)}
      ${composer({
        live,
        draft: this.draft,
        onInput: (text) => {
          const wasEmpty = this.draft.trim() === '';
          this.draft = text;
          this.saveSoon();
          // Only Send's enabled state depends on the draft (and a command's input hint, on a `/` draft).
          if (wasEmpty !== (text.trim() === '') || text.startsWith('/')) this.scheduleRender();
        },
        onSend: () => this.send(),
        onStop: () => this.stop(),
        commands: s.agent?.commands,
        completions: this.completions,
        onCompletionsChanged: () => this.scheduleRender(),
        context: this.context.context(),
      })}`;
  }

  /** One entry: the person's last message may be in its editor, and exchanges a later one replaced are dimmed. */
  private entry(e: EntryView, live: boolean, editable: boolean): TemplateResult {
    if (e.kind === 'user' && this.edits.isEditing(e.id)) return this.edits.template(e, live);
    const replaced = this.replaced.of(this.state.entries).has(e.id);
    const edit = editable ? this.startEdit : undefined;
    const shown = guard([e, edit], () => renderEntry(e, this.actions, edit));
    return replaced ? html`<div class="replaced" title="Replaced by a later edit, retry or regenerate: no longer in the agent’s history">${shown}</div>` : html`${shown}`;
  }

  /** The keyboard goes to the input (Focus Chat Input, a chip added from the editor). */
  private focusInput(): void {
    const input = this.root.querySelector<HTMLTextAreaElement>('#prompt-input');
    input?.focus();
    input?.setSelectionRange(input.value.length, input.value.length);
  }

  private afterRender(): void {
    if (this.completions.open) this.root.querySelector('.command-option.active')?.scrollIntoView({ block: 'nearest' });
    if (this.cursorAfterRender !== undefined) {
      const input = this.root.querySelector<HTMLTextAreaElement>('#prompt-input');
      input?.focus();
      input?.setSelectionRange(this.cursorAfterRender, this.cursorAfterRender);
      this.cursorAfterRender = undefined;
    }
    this.edits.afterRender(this.root);
    this.scroll.afterRender();
  }

  private saveSoon(): void {
    if (this.saveTimer !== undefined) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      const t = this.scroll.transcript();
      let anchor: { id: string; offset: number } | undefined;
      if (t && !this.window.followTail) {
        const el = [...t.querySelectorAll<HTMLElement>('[data-entry-id]')].find((e) => e.offsetTop + e.offsetHeight > t.scrollTop);
        if (el) anchor = { id: el.dataset.entryId!, offset: el.offsetTop - t.scrollTop };
      }
      this.bridge.saveViewState({ draft: this.draft, followTail: this.window.followTail, anchorEntryId: anchor?.id, anchorOffset: anchor?.offset });
    }, 300);
  }
}
