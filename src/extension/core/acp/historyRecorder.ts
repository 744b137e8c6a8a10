// The one builder of the history a fresh agent process continues a session from: prompts, answers and tool
// results folded into plain user/assistant messages (valid for every provider). It is fed live by the agent
// handle during turns, or from the transcript's tail when a process starts (`historyOfTranscript`).

import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ChatMessage } from '../../../shared/agentProtocol/history';
import { historyText } from '../../../shared/promptContext';
import type { TranscriptRecord } from '../store/transcriptRecords';

const maxToolTextInHistory = 2_000;

export class HistoryRecorder {
  private readonly messages: ChatMessage[] = [];
  private assistant: { role: 'assistant'; text: string } | undefined;

  constructor(initial: ChatMessage[] = []) {
    this.messages.push(...initial);
  }

  /** A prompt; its attachments are named in the text (their content is not kept). */
  user(text: string, attachments?: ReadonlyArray<{ name: string }>): void {
    this.assistant = undefined;
    this.messages.push({ role: 'user', text: historyText(text, attachments) });
  }

  update(update: SessionUpdate): void {
    if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') {
      this.appendAssistant(update.content.text);
    } else if (update.sessionUpdate === 'tool_call_update' && (update.status === 'completed' || update.status === 'failed')) {
      const text = (update.content ?? [])
        .map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : ''))
        .join('\n')
        .slice(0, maxToolTextInHistory);
      this.appendAssistant(`\n[tool ${update.toolCallId} ${update.status}: ${text}]\n`);
    }
  }

  get length(): number {
    return this.messages.length;
  }

  /** Drops the messages from `length` on (an exchange that a later prompt replaced). */
  truncate(length: number): void {
    this.messages.length = Math.min(length, this.messages.length);
    this.assistant = undefined;
  }

  snapshot(): ChatMessage[] {
    return this.messages.map((m) => ({ ...m }));
  }

  private appendAssistant(text: string): void {
    if (!this.assistant) {
      this.assistant = { role: 'assistant', text: '' };
      this.messages.push(this.assistant);
    }
    this.assistant.text += text;
  }
}

/**
 * The history in a session's transcript records. The turn being started already persisted its prompt, which the
 * agent is about to be sent: that unanswered turn is left out, or the agent would see the prompt twice.
 */
export function historyOfTranscript(records: readonly TranscriptRecord[]): ChatMessage[] {
  const lastStart = records.map((r) => r.type).lastIndexOf('turnStarted');
  const current = lastStart >= 0 && !records.slice(lastStart).some((r) => r.type === 'agentUpdate' || r.type === 'turnEnded');
  const recorder = new HistoryRecorder();
  /** Where the last prompt's exchange began: a prompt that replaces it (edit, retry, regenerate) cuts back to there. */
  let exchangeStart: number | undefined;
  records.forEach((record, i) => {
    const unanswered = current && i >= lastStart;
    if (record.type === 'userPrompt') {
      // Also the unanswered prompt's own replacement applies: the agent is sent it next, without the turn it replaces.
      if (record.redo?.replaced && exchangeStart !== undefined) recorder.truncate(exchangeStart);
      if (unanswered) return;
      exchangeStart = recorder.length;
      recorder.user(record.text, record.attachments);
    } else if (record.type === 'agentUpdate' && !unanswered) recorder.update(record.update as never);
  });
  return recorder.snapshot();
}
