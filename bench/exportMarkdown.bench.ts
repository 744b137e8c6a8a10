// Export Session as Markdown: time to fold a long transcript into entries and render it, and the size
// of the result (figures, not assertions).

import { transcriptEntries } from '../src/extension/presentation/transcriptExport';
import { transcriptMarkdown } from '../src/extension/presentation/transcriptMarkdown';
import type { TranscriptRecord } from '../src/extension/core/store/transcriptRecords';

function records(turns: number): TranscriptRecord[] {
  const out: TranscriptRecord[] = [];
  let at = 1_700_000_000_000;
  for (let t = 0; t < turns; t++) {
    out.push({ type: 'turnStarted', at: at++, source: 'user', epoch: 1 });
    out.push({ type: 'userPrompt', at: at++, text: `Question ${t}: what does \`step ${t}\` do?`, source: 'user' });
    for (let c = 0; c < 20; c++) out.push({ type: 'agentUpdate', at: at++, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `chunk ${c} of answer ${t} with *markdown* and <b>html</b>. ` } } });
    const id = `call-${t}`;
    out.push({ type: 'agentUpdate', at: at++, update: { sessionUpdate: 'tool_call', toolCallId: id, title: `run_command npm test ${t}`, kind: 'execute', status: 'in_progress', rawInput: { command: 'npm test' } } });
    out.push({ type: 'agentUpdate', at: at++, update: { sessionUpdate: 'tool_call_update', toolCallId: id, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'ok ```\n'.repeat(200) } }] } });
    out.push({ type: 'turnEnded', at: at++, reason: 'completed' });
  }
  return out;
}

function main(): void {
  for (const turns of [1_000, 10_000]) {
    const input = records(turns);
    const heap0 = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const entries = transcriptEntries(input);
    const t1 = performance.now();
    let chars = 0;
    let largest = 0;
    for (const piece of transcriptMarkdown({ title: 'Bench', sessionId: 'b', exportedAt: Date.now() }, entries)) {
      chars += piece.length;
      largest = Math.max(largest, piece.length);
    }
    const t2 = performance.now();
    console.log(
      `${turns} turns (${input.length} records, ${entries.length} entries): fold ${(t1 - t0).toFixed(0)} ms, render ${(t2 - t1).toFixed(0)} ms, ` +
        `${(chars / 1024 / 1024).toFixed(1)} MB of Markdown, largest piece ${(largest / 1024).toFixed(1)} KB, heap +${((process.memoryUsage().heapUsed - heap0) / 1024 / 1024).toFixed(0)} MB`,
    );
  }
}

main();
