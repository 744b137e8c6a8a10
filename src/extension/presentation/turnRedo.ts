// Edit and send again, Retry and Regenerate of a session's last exchange. The view names the message; this checks,
// against the host's own model of the session, that it is still the last exchange and that no turn runs (here or
// in another window), offers to restore the files that exchange's turn changed (never without asking), and sends
// the message as a new turn that records which exchange it replaces. The transcript keeps the replaced exchange;
// the built-in agent's history loses it (its history is Vigil's), another agent gets a new message.

import type { AttachmentSummary, PromptMention } from '../../shared/promptContext';
import type { SessionSnapshot } from '../../shared/sessionView';
import { lastExchange, redoRefusal, type RedoHow } from '../../shared/lastExchange';
import { mentionsFromSummaries, RedoMemory } from './redoContext';

export interface RedoIntent {
  sessionId?: string;
  entryId: string;
  how: RedoHow;
  /** The edited text (`edit` only). */
  text?: string;
}

export type RestoreChoice = 'restore' | 'keep';

export interface TurnRedoDeps {
  /** The session's model as the host holds it (never the view's claim). */
  snapshotOf(sessionId: string): SessionSnapshot;
  shownSessionId(): string | undefined;
  /** Whether a turn of the session runs, in this window or (by its lease) another. */
  hasActiveTurn(sessionId: string): Promise<boolean>;
  workFolder(sessionId: string): Promise<string | undefined>;
  /** Asks whether to put back the files the turn changed before sending; undefined: the person cancelled. */
  askRestore(files: number, how: RedoHow): Promise<RestoreChoice | undefined>;
  /** Restores the turn's files (showing what and asking as a Restore does); false when nothing was restored. */
  restore(sessionId: string, turnId: string): Promise<boolean>;
  send(sessionId: string, text: string, mentions: PromptMention[], redo: { how: RedoHow; replaced: boolean }): Promise<void>;
}

export class TurnRedo {
  /** The mentions of the last message each session was sent from this window. */
  readonly memory = new RedoMemory();
  /** Sessions with a redo between its check and its turn's start: a second click is refused, not sent twice. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly d: TurnRedoDeps) {}

  async redo(intent: RedoIntent): Promise<void> {
    const sessionId = intent.sessionId ?? this.d.shownSessionId();
    if (!sessionId) throw new Error('No session is open.');
    if (this.inFlight.has(sessionId)) throw new Error('This message is already being sent again.');
    this.inFlight.add(sessionId);
    try {
      await this.checkedRedo(sessionId, intent);
    } finally {
      this.inFlight.delete(sessionId);
    }
  }

  /** The palette's Retry Last Turn: the shown session's last turn, when it can be retried. */
  retryLast(): Promise<void> {
    const sessionId = this.d.shownSessionId();
    const found = sessionId ? lastExchange(this.d.snapshotOf(sessionId)) : undefined;
    if (!sessionId || !found) throw new Error('Open a session first: Retry Last Turn retries its last turn.');
    if (!found.ok) throw new Error(found.reason);
    return this.redo({ sessionId, entryId: found.exchange.user.id, how: 'retry' });
  }

  /** Whether the shown session's last turn can be retried now (the palette command's enablement). */
  canRetry(): boolean {
    const sessionId = this.d.shownSessionId();
    const found = sessionId ? lastExchange(this.d.snapshotOf(sessionId)) : undefined;
    return found?.ok === true && found.exchange.can.retry;
  }

  private async checkedRedo(sessionId: string, intent: RedoIntent): Promise<void> {
    const refusal = redoRefusal(this.d.snapshotOf(sessionId), sessionId, intent.how, intent.entryId);
    if (refusal) throw new Error(refusal);
    if (await this.d.hasActiveTurn(sessionId)) throw new Error('A turn of this session is running (here or in another window): stop it, or wait for it to end, then try again.');
    // Read again after the wait: only what still holds now is acted on.
    const snapshot = this.d.snapshotOf(sessionId);
    const again = redoRefusal(snapshot, sessionId, intent.how, intent.entryId);
    const found = lastExchange(snapshot);
    if (again || !found.ok) throw new Error(again ?? 'This message cannot be sent again now.');
    const { exchange } = found;
    const text = intent.how === 'edit' ? (intent.text ?? '').trim() : exchange.user.text;
    if (!text && !exchange.user.attachments?.length) throw new Error('An edited message needs text.');
    const mentions = await this.mentionsOf(sessionId, exchange.user);
    if (exchange.restorable) {
      const choice = await this.d.askRestore(exchange.restorable.files, intent.how);
      if (choice === undefined) throw new Error('Not sent: you cancelled. Nothing was restored.');
      if (choice === 'restore' && !(await this.d.restore(sessionId, exchange.restorable.turnId))) {
        throw new Error('Not sent: the files were not restored. Send again to choose anew.');
      }
    }
    await this.d.send(sessionId, text, mentions, { how: intent.how, replaced: snapshot.session?.builtin === true });
  }

  /** The message's attachments as mentions again: this window's own, else the files its summary names. */
  private async mentionsOf(sessionId: string, user: { text: string; attachments?: readonly AttachmentSummary[] }): Promise<PromptMention[]> {
    const summaries = user.attachments ?? [];
    if (summaries.length === 0) return [];
    const kept = this.memory.recall(sessionId, user.text, summaries.length);
    if (kept) return kept;
    const { mentions, missing } = mentionsFromSummaries(summaries, await this.d.workFolder(sessionId));
    if (missing.length > 0) {
      throw new Error(`Not sent: ${missing.join(', ')} cannot be attached again (Vigil keeps a selection, the Problems list or an image only in the window that sent it). Write the message anew with them attached.`);
    }
    return mentions;
  }
}
