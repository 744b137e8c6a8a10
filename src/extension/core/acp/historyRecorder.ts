// Keeps what the agent needs to continue a session in a fresh process: prompts, answers and tool
// results, folded into plain user/assistant messages (valid for every provider).

import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ChatMessage } from '../../../shared/agentProtocol/history';

const maxToolTextInHistory = 2_000;

export class HistoryRecorder {
  private readonly messages: ChatMessage[] = [];
  private assistant: { role: 'assistant'; text: string } | undefined;

  constructor(initial: ChatMessage[] = []) {
    this.messages.push(...initial);
  }

  user(text: string): void {
    this.assistant = undefined;
    this.messages.push({ role: 'user', text });
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
