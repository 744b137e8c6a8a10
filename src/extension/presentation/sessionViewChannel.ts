// The host end of the webview protocol, free of vscode so it runs in plain Node tests: validates
// every inbound message, does the ready handshake, answers pings, and hands every other message to the
// handler of its type (viewHandlers.ts), posting back what that handler answers. A plain
// sequencer: it numbers and posts what the session's model (sessionModels.ts) produced and asks the
// model for the snapshot on every `ready`; it derives no state of its own. A long session goes out as
// its tail first; the older entries follow when the webview, having painted, asks for them.

import type { Logger } from '../core/ports/logger';
import type { EntryView, HostEvent, SessionSnapshot } from '../../shared/sessionView';
import { findEntry } from '../../shared/sessionViewReducer';
import { messageMarkdown } from './transcriptMarkdown';
import type * as Protocol from '../../shared/webviewProtocol';
import type { HostMessage, WebviewMessage } from '../../shared/webviewProtocol';
import type { MentionItem } from '../../shared/promptContext';
import type { ChannelMessageType, IntentHandlers, ViewHandlers } from './viewHandlers';
import type { ViewSurface } from './viewSurface';

/**
 * The protocol module (and zod with it) is loaded when the first message arrives, not while the
 * extension activates: the extension's bundle takes it from dist/schemas.js then (scripts/extensionBuild.cjs).
 */
let protocol: typeof Protocol | undefined;
function loadProtocol(): typeof Protocol {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  protocol ??= require('../../shared/webviewProtocol') as typeof Protocol;
  return protocol;
}

/** A handler as the channel calls it, once the message's type has picked it. */
type AnyHandler = (message: WebviewMessage, surface: ViewSurface) => ReturnType<ViewHandlers[keyof ViewHandlers]>;

export type PostToWebview = (message: HostMessage) => unknown;

export interface ChannelObserver {
  onRejected?(reason: string): void;
  onAccepted?(message: WebviewMessage): void;
  onReady?(): void;
}

export class SessionViewChannel {
  private ready = false;
  private seq = 0;
  /** What the last tail snapshot omitted, kept (as sent) until the webview asks for it. */
  private omitted: { seq: number; entries: EntryView[] } | undefined;
  /** Focus asked for before the webview said `ready`: given once it has painted the snapshot. */
  private focusPending = false;
  /** Chips sent before the webview said `ready`: sent after its snapshot. */
  private readonly queued: Array<() => void> = [];

  constructor(
    private readonly post: PostToWebview,
    /** The view this channel serves: its session's model, and which session a message is for. */
    private readonly surface: ViewSurface,
    private readonly handlers: IntentHandlers,
    private readonly logger: Logger,
    private readonly observer: ChannelObserver = {},
    /** Cuts secrets out of every message on its way to the webview (snapshots, events, errors). */
    private readonly redact: <T>(message: T) => T = (message) => message,
    /** Puts text on the clipboard (Copy on a message); absent: the view cannot copy. */
    private readonly clipboard?: (text: string) => unknown,
  ) {}

  get isReady(): boolean {
    return this.ready;
  }

  /** What a (re)loading webview is sent: the shown session's model, as the surface holds it. */
  get snapshot(): SessionSnapshot {
    return this.surface.snapshot();
  }

  /** The webview went away or was re-rendered: post nothing until it says `ready` again. */
  reset(): void {
    this.ready = false;
  }

  /** Another session is shown (or the shown one was read again): the webview starts over from this. */
  postSnapshot(snapshot: SessionSnapshot): void {
    if (this.ready) this.sendSnapshot(snapshot);
  }

  /** A change the model already folded. Before `ready` it is dropped: the handshake sends the model's snapshot. */
  postEvent(event: HostEvent): void {
    if (this.ready) this.send({ type: 'event', seq: ++this.seq, event });
  }

  /** Chips for the composer (Add File/Selection to Vigil); a webview still loading gets them after its snapshot. */
  addMentions(items: MentionItem[], note?: string): void {
    this.whenReady(() => this.send({ type: 'addMentions', items, ...(note ? { note } : {}) }));
  }

  /** Puts the keyboard in the composer's input (now, or once the webview is ready). */
  focusInput(): void {
    if (this.ready) this.send({ type: 'focusInput' });
    else this.focusPending = true;
  }

  private whenReady(send: () => void): void {
    if (this.ready) send();
    else if (this.queued.length < 20) this.queued.push(send);
  }

  /** Entry point for everything the webview posts. Never throws. */
  async receive(raw: unknown): Promise<void> {
    let parsed: Protocol.ParseResult<WebviewMessage>;
    try {
      parsed = loadProtocol().parseWebviewMessage(raw);
    } catch (error) {
      // The protocol could not be loaded (parsing itself never throws): no message can be checked, so
      // none is handled; the log and the view say why.
      const text = error instanceof Error ? error.message : String(error);
      this.logger.error(`webview message not handled: ${text}`);
      this.observer.onRejected?.(text);
      this.send({ type: 'error', message: text });
      return;
    }
    if (!parsed.ok) {
      this.logger.warn(`rejected webview message: ${parsed.reason}`);
      this.observer.onRejected?.(parsed.reason);
      return;
    }
    const message = parsed.message;
    this.observer.onAccepted?.(message);
    try {
      await this.dispatch(message);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.logger.error(`webview intent "${message.type}" failed: ${text}`);
      this.send({ type: 'error', requestId: message.id, message: text });
    }
  }

  /** The messages about the view and the channel themselves; every other type's handler is given (`handlers`). */
  private readonly own: Pick<ViewHandlers, ChannelMessageType> = {
    ready: () => this.onReady(),
    history: (message) => this.onHistory(message.id, message.snapshotSeq),
    ping: (message) => ({ type: 'pong', id: message.id }),
    error: (message) => this.logger.warn(`webview dropped a host message: ${message.message}`),
    copyEntry: (message) => this.copyEntry(message.sessionId, message.entryId),
  };

  /** One hop: the handler of the message's type, and its answer posted back. */
  private async dispatch(message: WebviewMessage): Promise<void> {
    const handler = (this.own as Partial<Record<string, AnyHandler>>)[message.type] ?? (this.handlers as Partial<Record<string, AnyHandler>>)[message.type];
    // Only a map built around the types (a cast, plain JavaScript) lacks one: said to the view, not dropped.
    if (!handler) throw new Error(`This view cannot handle "${message.type}" messages.`);
    const answer = await handler(message, this.surface);
    if (answer) this.send(answer);
  }

  private onReady(): void {
    this.ready = true;
    this.sendSnapshot(this.surface.snapshot());
    for (const send of this.queued.splice(0)) send();
    if (this.focusPending) this.send({ type: 'focusInput' });
    this.focusPending = false;
    this.observer.onReady?.();
  }

  private onHistory(requestId: string, snapshotSeq: number): HostMessage | undefined {
    const omitted = this.omitted;
    if (!omitted || omitted.seq !== snapshotSeq) {
      // A newer snapshot already went out (it replaces `omitted`); the webview asks again for
      // that one, so this request needs no answer, and an error would only alarm the person.
      this.logger.debug(`ignored history request for replaced snapshot ${snapshotSeq}`);
      return undefined;
    }
    this.omitted = undefined;
    return { type: 'history', requestId, snapshotSeq: omitted.seq, entries: omitted.entries };
  }

  /** The Markdown of a message the host itself holds for the session on screen; the view only names it. */
  private async copyEntry(sessionId: string | undefined, entryId: string): Promise<void> {
    if (!this.clipboard) throw new Error('This view cannot copy messages.');
    const current = this.surface.snapshot();
    if (sessionId !== current.session?.id) throw new Error('That message belongs to a session that is no longer open; copy it from there.');
    const i = findEntry(current.entries, entryId);
    const text = i >= 0 ? messageMarkdown(current.entries[i]) : undefined;
    if (text === undefined) throw new Error('That message is no longer in the transcript, or it is not a message that can be copied.');
    await this.clipboard(this.redact(text));
  }

  private sendSnapshot(snapshot: SessionSnapshot): void {
    const seq = ++this.seq;
    const all = snapshot.entries;
    const { snapshotTailEntries } = loadProtocol();
    if (all.length <= snapshotTailEntries) {
      this.omitted = undefined;
      this.send({ type: 'snapshot', seq, snapshot });
      return;
    }
    // Entries are immutable and only appended or replaced in place, so these slices stay exact.
    const split = all.length - snapshotTailEntries;
    this.omitted = { seq, entries: all.slice(0, split) };
    this.send({ type: 'snapshot', seq, snapshot: { ...snapshot, entries: all.slice(split) }, omitted: split });
  }

  private send(message: HostMessage): void {
    try {
      const result = this.post(this.redact(message));
      // webview.postMessage returns a Thenable; a rejected post means the webview is gone.
      if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
        (result as PromiseLike<unknown>).then(undefined, (error: unknown) => this.logger.debug(`post to webview failed: ${String(error)}`));
      }
    } catch (error) {
      this.logger.debug(`post to webview failed: ${String(error)}`);
    }
  }
}
