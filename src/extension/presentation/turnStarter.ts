// Starts a session's turn for the person (a message, a resume, an edit or retry): waits for the settings to name
// the agent, asks the supervisor, turns its refusals into errors the view shows, and reports a failed turn
// with remedies beyond the view. Stop cancels a turn still waiting here.

import { errorMessage } from '../core/common/errors';
import type { SettledHooks } from '../core/settings/agentChoiceGate';
import type { Logger } from '../core/ports/logger';
import type { StartTurnOptions, TurnEnded, TurnPort } from '../core/ports/turns';
import type { PromptAttachment } from '../../shared/promptContext';
import { waitingForSettings } from '../../shared/turnWords';
import type { SessionModels } from './sessionModels';

/** What a start needs of the services: the supervisor's admission. */
type Services = { supervisor: Pick<TurnPort, 'startTurn'> };

export interface TurnStarterDeps {
  logger: Logger;
  changed(statusOnly?: boolean): void;
  onTurnFailed?(ended: TurnEnded, text: string | undefined): void;
  agentChoiceSettled?(hooks: SettledHooks): Promise<void>;
}

const settingsNoticeId = 'settings-wait';

export class TurnStarter {
  /** User turns still waiting for a busy lease or the settings, per session: Stop cancels the wait. */
  private readonly waiting = new Map<string, AbortController>();

  constructor(
    private readonly d: TurnStarterDeps,
    private readonly models: SessionModels,
  ) {}

  /** Stop before the turn began: the wait ends and nothing is sent. */
  cancelWait(sessionId: string): void {
    this.waiting.get(sessionId)?.abort();
  }

  async start(
    services: Services, sessionId: string, text: string, source: 'user' | 'resume',
    more: { attachments?: PromptAttachment[]; redo?: StartTurnOptions['redo'] } = {},
  ): Promise<void> {
    const abort = new AbortController();
    this.waiting.set(sessionId, abort);
    try {
      await this.agentChoice(sessionId, abort.signal);
      const { attachments, redo } = more;
      const result = await services.supervisor.startTurn(sessionId, text, { source, signal: abort.signal, ...(attachments?.length ? { attachments } : {}), ...(redo ? { redo } : {}) });
      if (result.kind === 'started') void result.ended.then((ended) => this.failed(ended, source === 'user' ? text : undefined));
      if (result.kind === 'failed') throw new Error(result.reason);
      if (result.kind === 'busy') throw new Error('This session already has a turn running. Stop it first, or wait for it to finish.');
      if (result.kind === 'paused') throw new Error('Wakeups of this session are paused after a provider failure; fix the key or model, then Resume.');
    } finally {
      if (this.waiting.get(sessionId) === abort) this.waiting.delete(sessionId);
      this.d.changed();
    }
  }

  /** A failed turn with remedies is reported beyond the view (a notification with the same buttons). */
  failed(ended: TurnEnded, text: string | undefined): void {
    if (ended.reason !== 'failed' || !ended.remedies?.length) return;
    try {
      this.d.onTurnFailed?.(ended, text);
    } catch (error) {
      this.d.logger.error(`reporting the failed turn ${ended.turnId}: ${errorMessage(error)}`);
    }
  }

  /** Holds the message while Vigil cannot know which agent the person chose, and says so in the view. */
  private async agentChoice(sessionId: string, signal: AbortSignal): Promise<void> {
    const presenter = () => this.models.get(sessionId);
    const waiting = () => presenter()?.note({ id: settingsNoticeId, kind: 'info', text: waitingForSettings.text, detail: waitingForSettings.detail, resumable: false, at: Date.now() });
    try {
      await this.d.agentChoiceSettled?.({ signal, waiting });
    } finally {
      // Sent, stopped or given back with the reason beside the draft: the notice no longer holds.
      presenter()?.withdraw(settingsNoticeId);
    }
  }
}
