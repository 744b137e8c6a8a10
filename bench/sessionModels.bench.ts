// One model per session (presentation/sessionModels.ts): what showing a session costs the host when its
// model is built from a 10,000-record tail, against showing again the kept model of a session whose turn
// runs here; and the host's work per streamed chunk now that only the model folds it (figures only).

import { silentLogger } from '../src/extension/core/ports/logger';
import type { SessionMeta } from '../src/extension/core/store/sessionStore';
import type { TranscriptRecord } from '../src/extension/core/store/transcriptRecords';
import { SessionModels } from '../src/extension/presentation/sessionModels';
import { SessionViewChannel } from '../src/extension/presentation/sessionViewChannel';
import type { IntentHandlers } from '../src/extension/presentation/viewHandlers';
import { sideBarSurface } from '../src/extension/presentation/viewSurface';
import type { HostEvent } from '../src/shared/sessionView';
import { applyHostEvent } from '../src/shared/sessionViewReducer';
import { loadNote } from './support/cpuHogs';

const RECORDS = 10_000;
const CHUNKS = 20_000;

function meta(id: string): SessionMeta {
  return { id, title: id, createdAt: 1, updatedAt: 1, state: 'idle' };
}

function transcript(n: number): TranscriptRecord[] {
  const records: TranscriptRecord[] = [];
  for (let i = 0; records.length < n; i += 1) {
    const at = 1_700_000_000_000 + i;
    records.push({ type: 'userPrompt', at, source: 'user', text: `question ${i}` });
    records.push({ type: 'agentUpdate', at, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `answer ${i} `.repeat(20) } } });
    records.push({ type: 'agentUpdate', at, update: { sessionUpdate: 'tool_call', toolCallId: `c${i}`, title: 'run npm test', kind: 'execute', status: 'pending' } });
    records.push({ type: 'agentUpdate', at, update: { sessionUpdate: 'tool_call_update', toolCallId: `c${i}`, status: 'completed' } });
  }
  return records.slice(0, n);
}

function median(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const records = transcript(RECORDS);
  const live = new Set(['a']);
  const models = new SessionModels({ post: () => undefined, isLive: (id) => live.has(id) });
  const seed = (id: string) => ({ meta: meta(id), records, live: undefined, tasks: [], approvals: [] });

  const built: number[] = [];
  const again: number[] = [];
  for (let round = 0; round < 7; round += 1) {
    let t0 = performance.now();
    models.show(seed('a'));
    built.push(performance.now() - t0);
    models.show({ ...seed('b'), records: [] });
    t0 = performance.now();
    if (!models.reshow('a')) throw new Error('the kept model was dropped');
    again.push(performance.now() - t0);
  }
  console.log(`show a session from a ${RECORDS}-record tail (its model folded): ${median(built).toFixed(1)} ms median of 7 (${loadNote()})`);
  console.log(`show again a session whose turn runs here (its kept model): ${median(again).toFixed(3)} ms median of 7 (${loadNote()})`);

  // Streaming: each chunk is folded by the shown model, then numbered and posted by the channel.
  const events: HostEvent[] = [];
  const surface = sideBarSurface({ getSnapshot: () => models.shown!.snapshot, currentSessionId: undefined });
  const channel = new SessionViewChannel(() => undefined, surface, {} as IntentHandlers, silentLogger);
  await channel.receive({ type: 'ready', id: 'bench' });
  const streamed = new SessionModels({ post: (event) => { events.push(event); channel.postEvent(event); }, isLive: () => false });
  const model = streamed.show(seed('c'));
  const chunk = (i: number): TranscriptRecord => ({ type: 'agentUpdate', at: 1_800_000_000_000 + i, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'token ' } } });
  let t0 = performance.now();
  for (let i = 0; i < CHUNKS; i += 1) model.records([chunk(i)]);
  const now = (performance.now() - t0) / CHUNKS;
  // What the channel's own fold added per event before it became a sequencer.
  let copy = model.snapshot;
  t0 = performance.now();
  for (const event of events.slice(0, CHUNKS)) copy = applyHostEvent(copy, event);
  const removed = (performance.now() - t0) / CHUNKS;
  console.log(`host work per streamed chunk (model fold + channel post): ${(now * 1000).toFixed(1)} µs; the second fold the channel no longer does: ${(removed * 1000).toFixed(1)} µs (${loadNote()})`);
}

void main();
