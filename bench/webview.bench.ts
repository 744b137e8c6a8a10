// Session view figures on plain Node: validating a 10,000-entry snapshot and folding streaming
// events into it (the work the webview and the host do per message). First paint is in Chromium:
// see webviewPaint.bench.ts.

import { applyHostEvent } from '../src/shared/sessionViewReducer';
import type { EntryView, SessionSnapshot } from '../src/shared/sessionView';
import { emptySnapshot } from '../src/shared/sessionView';
import { parseHostMessage } from '../src/shared/webviewProtocol';
import { loadNote } from './support/cpuHogs';

function transcript(n: number): EntryView[] {
  const entries: EntryView[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 3 === 0) entries.push({ kind: 'user', id: `u${i}`, text: `question ${i} about src/foo.ts`, at: i });
    else if (i % 3 === 1) entries.push({ kind: 'agent', id: `a${i}`, markdown: `**answer** ${i}\n\n\`\`\`ts\nconst x = ${i};\n\`\`\``, streaming: false, at: i });
    else entries.push({ kind: 'toolCall', id: `tool:t${i}`, at: i, toolCall: { toolCallId: `t${i}`, title: 'run_command npm test', kind: 'execute', status: 'completed', rawInput: { command: 'npm test' }, content: [{ type: 'text', text: 'ok' }], startedAt: i, endedAt: i + 5 } });
  }
  return entries;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function main(): void {
  const snapshot: SessionSnapshot = { ...emptySnapshot(), session: { id: 's', title: 'bench' }, entries: transcript(10_000) };
  const message = structuredClone({ type: 'snapshot', seq: 1, snapshot });

  const parse: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    if (!parseHostMessage(message).ok) throw new Error('bench snapshot failed validation');
    parse.push(performance.now() - t0);
  }
  console.log(`webview snapshot validation, 10,000 entries (median of ${parse.length}): ${median(parse).toFixed(1)} ms (${loadNote()})`);

  let state = snapshot;
  const chunks = 2_000;
  let t0 = performance.now();
  for (let i = 0; i < chunks; i++) state = applyHostEvent(state, { type: 'chunkAppended', entryId: 'streaming', entryKind: 'agent', text: 'token ', at: i });
  console.log(`webview reducer, streaming chunk on a 10,000-entry session: ${(((performance.now() - t0) * 1000) / chunks).toFixed(1)} µs/event (${loadNote()})`);

  const appends = 2_000;
  t0 = performance.now();
  for (let i = 0; i < appends; i++) state = applyHostEvent(state, { type: 'entryAppended', entry: { kind: 'user', id: `n${i}`, text: 'more', at: i } });
  console.log(`webview reducer, entry append on a 10,000-entry session: ${(((performance.now() - t0) * 1000) / appends).toFixed(1)} µs/event (${loadNote()})`);
}

main();
