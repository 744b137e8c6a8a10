// The session view's answer to an agent's elicitation, wherever it waits: this window's own form, or one that a turn
// of another window published (checked here as that window's form would check it, then claimed in the store, where
// the first answer from any window wins).

import type { ElicitationAnswer } from '../core/acp/elicitationHost';
import type { AnswerResult } from '../core/crosswindow/remoteControl';
import type { ElicitationValues } from '../../shared/elicitationForm';
import type { ElicitationView } from '../../shared/sessionView';
import { checkAnswer, type ElicitationBroker } from './elicitationBroker';

export interface ElicitationRoutes {
  local: ElicitationBroker;
  /** Another window's elicitation shown in this view, if `requestId` is one. */
  remote(requestId: string): ElicitationView | undefined;
  /** The one claim in the store. */
  claim(sessionId: string, requestId: string, answer: ElicitationAnswer): Promise<AnswerResult>;
}

/**
 * Where the answer went: `local`, `remote` (it won in the store), or `gone` (already answered or cancelled).
 * Throws with what to fix when the answer is refused (the form stays open).
 */
export async function answerElicitation(
  r: ElicitationRoutes,
  sessionId: string | undefined,
  requestId: string,
  action: ElicitationAnswer['action'],
  content?: ElicitationValues,
): Promise<'local' | 'remote' | 'gone'> {
  const result = r.local.answer(requestId, action, content);
  if (typeof result === 'string') throw new Error(result);
  if (result) return 'local';
  const view = r.remote(requestId);
  if (sessionId === undefined || !view) return 'gone';
  const answer = checkAnswer(view, action, content);
  if (typeof answer === 'string') throw new Error(answer);
  return (await r.claim(sessionId, requestId, answer)).kind === 'won' ? 'remote' : 'gone';
}

/** The link of an open URL elicitation, this window's or another's (checked again when read from the store). */
export function elicitationUrl(r: ElicitationRoutes, requestId: string): string | undefined {
  const remote = r.remote(requestId);
  return r.local.urlOf(requestId) ?? (remote?.mode === 'url' ? remote.url : undefined);
}
