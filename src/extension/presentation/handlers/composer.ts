// The composer's messages: a prompt, what `@`, a drop and the Problems button attach (answered under the message's
// id), and Edit, Retry and Regenerate of the last exchange (turnRedo.ts).

import type { MentionItem, PromptMention } from '../../../shared/promptContext';
import type { RedoIntent } from '../turnRedo';
import type { IntentHandlers } from '../viewHandlers';

type Found = Promise<{ items: MentionItem[]; images?: boolean; note?: string }>;

export interface ComposerPorts {
  /** Sends the person's message (sessionController.ts). */
  prompt(intent: { sessionId?: string; text: string; mentions?: PromptMention[] }): Promise<void>;
  /** What `@` offers, the mentions a drop makes (URIs the drag named, hostile until checked), the active file's Problems (promptMentions.ts). */
  mentions: { choices(sessionId: string | undefined, query: string): Found; dropped(sessionId: string | undefined, uris: string[]): Found; activeProblems(sessionId: string | undefined): Found };
  /** Refused, with the reason, when the message named is not the last exchange's. */
  redo(intent: RedoIntent): Promise<void>;
}

/** `ports` is read when a message arrives. */
export function composerHandlers(ports: () => ComposerPorts) {
  return {
    prompt: (m, view) => ports().prompt({ sessionId: view.aim(m.sessionId), text: m.text, ...(m.mentions ? { mentions: m.mentions } : {}) }),
    mentionQuery: async (m, view) => ({ type: 'mentions', requestId: m.id, ...(await ports().mentions.choices(view.aim(m.sessionId), m.query)) }),
    dropUris: async (m, view) => ({ type: 'addMentions', requestId: m.id, ...(await ports().mentions.dropped(view.aim(m.sessionId), m.uris)) }),
    activeProblems: async (m, view) => ({ type: 'addMentions', requestId: m.id, ...(await ports().mentions.activeProblems(view.aim(m.sessionId))) }),
    redo: (m, view) => ports().redo({ sessionId: view.aim(m.sessionId), entryId: m.entryId, how: m.how, ...(m.text !== undefined ? { text: m.text } : {}) }),
  } satisfies Partial<IntentHandlers>;
}
