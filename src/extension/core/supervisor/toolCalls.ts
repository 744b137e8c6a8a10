// Tracks the ACP tool calls of a turn that have not reached a final status (to close them on an abort or crash).

import { TOOL_ENDED_TEXT } from '../../../shared/sessionView';
import type { TranscriptRecord } from '../store/transcriptRecords';

const FINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * What a tool call the agent still showed pending or running when its turn ended becomes, whatever the stop
 * reason (Codex leaves calls "in progress" after a normal end_turn): no result came, and it is not running.
 */
export const ENDED_WITHOUT_RESULT = { status: 'ended', text: TOOL_ENDED_TEXT } as const;

export class ToolCallTracker {
  private readonly open = new Map<string, string>();

  /** Feeds one ACP `session/update` payload. */
  observe(update: Record<string, unknown> | undefined): void {
    if (!update) return;
    const kind = update['sessionUpdate'];
    const id = update['toolCallId'];
    if (typeof id !== 'string' || (kind !== 'tool_call' && kind !== 'tool_call_update')) return;
    const status = update['status'];
    if (typeof status === 'string' && FINAL.has(status)) {
      this.open.delete(id);
    } else if (kind === 'tool_call' || this.open.has(id)) {
      this.open.set(id, typeof update['title'] === 'string' ? (update['title'] as string) : id);
    }
  }

  close(id: string): void {
    this.open.delete(id);
  }

  openIds(): string[] {
    return [...this.open.keys()];
  }
}

/**
 * Replays the records of the last turn in `records` (a transcript tail): whether it ended,
 * and which of its tool calls never produced a result.
 */
export function lastTurnState(records: readonly TranscriptRecord[], turnId?: string): { ended: boolean; openToolCalls: string[] } {
  let start = 0;
  for (let i = records.length - 1; i >= 0; i -= 1) {
    const r = records[i];
    if (r.type === 'turnStarted' && (turnId === undefined || r.turnId === turnId)) {
      start = i;
      break;
    }
  }
  const tracker = new ToolCallTracker();
  let ended = false;
  for (const r of records.slice(start)) {
    if (r.type === 'agentUpdate') tracker.observe(r.update);
    else if (r.type === 'syntheticToolResult') tracker.close(r.toolCallId);
    else if ((r.type === 'turnEnded' || r.type === 'interrupted') && (turnId === undefined || r.turnId === turnId)) ended = true;
  }
  return { ended, openToolCalls: tracker.openIds() };
}
