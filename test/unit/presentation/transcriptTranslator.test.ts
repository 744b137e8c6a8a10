// Transcript records become the session view's host events: streaming chunks extend one entry,
// tool calls and their updates keep their id, notices and wakeups get their own entries.

import * as assert from 'node:assert';
import { TranscriptTranslator } from '../../../src/extension/presentation/transcriptTranslator';
import { TurnStatusTracker } from '../../../src/extension/presentation/turnStatusTracker';
import { applyHostEvent, endedNoticeId } from '../../../src/shared/sessionViewReducer';
import { emptySnapshot, type SessionSnapshot } from '../../../src/shared/sessionView';
import { parseTranscriptRecord, type TranscriptRecord } from '../../../src/extension/core/store/transcriptRecords';

function fold(records: TranscriptRecord[]): SessionSnapshot {
  const translator = new TranscriptTranslator();
  let state = emptySnapshot();
  for (const r of records) for (const e of translator.translate(r)) state = applyHostEvent(state, e);
  return state;
}

const chunk = (text: string, at: number, kind = 'agent_message_chunk'): TranscriptRecord => ({
  type: 'agentUpdate',
  at,
  turnId: 't1',
  update: { sessionUpdate: kind, content: { type: 'text', text } },
});

describe('transcript translator', () => {
  it('joins consecutive message chunks into one streaming entry and ends it at the turn end', () => {
    const state = fold([
      { type: 'turnStarted', at: 1, turnId: 't1', source: 'user', epoch: 1 },
      { type: 'userPrompt', at: 1, turnId: 't1', source: 'user', text: 'hi' },
      chunk('Hel', 2),
      chunk('lo', 3),
      { type: 'turnEnded', at: 4, turnId: 't1', reason: 'completed' },
    ]);
    assert.deepStrictEqual(state.entries.map((e) => e.kind), ['user', 'agent']);
    const agent = state.entries[1];
    assert.ok(agent.kind === 'agent');
    assert.strictEqual(agent.markdown, 'Hello');
    assert.strictEqual(agent.streaming, false);
  });

  it('a failed turn keeps why in the transcript, as one entry with the live notice of the same end', () => {
    const records: TranscriptRecord[] = [
      { type: 'turnStarted', at: 1, turnId: 't1', source: 'user', epoch: 1 },
      { type: 'userPrompt', at: 1, turnId: 't1', source: 'user', text: 'hi' },
      chunk('Hel', 2),
      { type: 'turnEnded', at: 4, turnId: 't1', reason: 'failed', message: 'The agent stopped during the turn.' },
    ];
    const replayed = fold(records);
    assert.deepStrictEqual(replayed.entries.map((e) => e.kind), ['user', 'agent', 'notice']);
    const notice = replayed.entries[2];
    assert.ok(notice.kind === 'notice');
    assert.deepStrictEqual([notice.notice.kind, notice.notice.text], ['error', 'The agent stopped during the turn.']);
    // Live, the tracker's notice of the same end lands in the transcript too: it replaces the entry, never adds one.
    const live = applyHostEvent(replayed, { type: 'turnStatusChanged', turn: replayed.turn, notice: { ...notice.notice, id: endedNoticeId('t1'), at: 5 } });
    assert.deepStrictEqual(live.entries.map((e) => e.kind), ['user', 'agent', 'notice']);
    assert.deepStrictEqual(fold([{ type: 'turnEnded', at: 4, turnId: 't1', reason: 'completed' }]).entries, [], 'a turn that ended well adds nothing');
  });

  it('a turn interrupted with its window is one entry, whether its record or its live end arrives first, and after a reload', () => {
    const started: TranscriptRecord[] = [
      { type: 'turnStarted', at: 1, turnId: 't1', source: 'user', epoch: 1 },
      { type: 'userPrompt', at: 1, turnId: 't1', source: 'user', text: 'hi' },
    ];
    const interrupted: TranscriptRecord = { type: 'interrupted', at: 4, turnId: 't1', reason: 'Stopped: the window running this turn closed before it finished' };
    const tracker = new TurnStatusTracker(() => 5);
    tracker.apply({ type: 'turnStarted', sessionId: 's', turnId: 't1', source: 'user', startedAt: 1 });
    const liveEnd = tracker.apply({ type: 'turnEnded', ended: { sessionId: 's', turnId: 't1', source: 'user', reason: 'interrupted', message: interrupted.reason } })!;
    const translator = new TranscriptTranslator();
    let state = emptySnapshot();
    for (const r of started) for (const e of translator.translate(r)) state = applyHostEvent(state, e);
    const recordFirst = [...translator.translate(interrupted), liveEnd].reduce(applyHostEvent, state);
    const liveFirst = [liveEnd, ...new TranscriptTranslator().translate(interrupted)].reduce(applyHostEvent, fold(started));
    for (const [how, s] of [['record first', recordFirst], ['live end first', liveFirst], ['after a reload', fold([...started, interrupted])]] as const) {
      assert.deepStrictEqual(s.entries.map((e) => (e.kind === 'notice' ? `notice: ${e.notice.text}` : e.kind)), ['user', `notice: ${interrupted.reason}`], how);
    }
  });

  it('a chunk of another message (ACP messageId) starts an entry of its own; chunks without one join as before', () => {
    const withId = (text: string, at: number, messageId: string): TranscriptRecord => parseTranscriptRecord({ ...chunk(text, at), update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text }, messageId } })!;
    const state = fold([withId('Model metadata not found.', 1, 'm1'), withId('The word ', 2, 'm2'), withId('was pelican.', 3, 'm2'), chunk(' And more.', 4)]);
    assert.deepStrictEqual(state.entries.map((e) => (e.kind === 'agent' ? e.markdown : e.kind)), ['Model metadata not found.', 'The word was pelican. And more.']);
  });

  it('without a messageId, a whole sentence followed straight by a capital is another message (an agent\'s notice, then its answer); never in code, never for a model\'s own spacing', () => {
    const notice = 'Model metadata for `vigil-test-model` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.';
    const agentTexts = (state: SessionSnapshot) => state.entries.map((e) => (e.kind === 'agent' ? e.markdown : e.kind));
    assert.deepStrictEqual(agentTexts(fold([chunk(notice, 1), chunk('The whole answer.', 2)])), [notice, 'The whole answer.']);
    // A model's stream carries its own spaces and newlines; short chunks and lower-case starts go on the same entry.
    assert.deepStrictEqual(agentTexts(fold([chunk(notice, 1), chunk(' The whole answer.', 2)])), [`${notice} The whole answer.`]);
    assert.deepStrictEqual(agentTexts(fold([chunk('Done.', 1), chunk('Then more.', 2)])), ['Done.Then more.']);
    assert.deepStrictEqual(agentTexts(fold([chunk(`${notice.slice(0, -1)},`, 1), chunk('And so on.', 2)])), [`${notice.slice(0, -1)},And so on.`]);
    // In a code fence, `Foo.` + `Bar` is code.
    const code = '```cs\nvar line = System.Console.ReadLine(); // a long enough line of code ends with System.';
    assert.deepStrictEqual(agentTexts(fold([chunk(code, 1), chunk('Console.WriteLine(line);\n```', 2)])), [`${code}Console.WriteLine(line);\n\`\`\``]);
  });

  it('a thought between messages starts new entries instead of merging', () => {
    const state = fold([chunk('a', 1), chunk('thinking', 2, 'agent_thought_chunk'), chunk('b', 3)]);
    assert.deepStrictEqual(state.entries.map((e) => e.kind), ['agent', 'thought', 'agent']);
  });

  it('maps a tool call and its updates, with content, diff and duration', () => {
    const state = fold([
      { type: 'agentUpdate', at: 10, update: { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'edit a.ts', kind: 'edit', status: 'pending', rawInput: { path: 'a.ts' } } },
      {
        type: 'agentUpdate',
        at: 25,
        update: { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', content: [{ type: 'diff', path: 'a.ts', oldText: 'x', newText: 'y' }, { type: 'content', content: { type: 'text', text: 'ok' } }] },
      },
    ]);
    const entry = state.entries[0];
    assert.ok(entry.kind === 'toolCall');
    assert.strictEqual(entry.toolCall.status, 'completed');
    assert.strictEqual(entry.toolCall.kind, 'edit');
    assert.strictEqual(entry.toolCall.startedAt, 10);
    assert.strictEqual(entry.toolCall.endedAt, 25);
    assert.deepStrictEqual(entry.toolCall.content, [{ type: 'diff', path: 'a.ts', oldText: 'x', newText: 'y' }, { type: 'text', text: 'ok' }]);
  });

  it('unknown kinds and statuses degrade to other/pending instead of breaking the view', () => {
    const state = fold([{ type: 'agentUpdate', at: 1, update: { sessionUpdate: 'tool_call', toolCallId: 'c', title: 't', kind: 'teleport', status: 'weird' } }]);
    const entry = state.entries[0];
    assert.ok(entry.kind === 'toolCall');
    assert.strictEqual(entry.toolCall.kind, 'other');
    assert.strictEqual(entry.toolCall.status, 'pending');
  });

  it('a synthetic result marks an unfinished tool call interrupted', () => {
    const state = fold([
      { type: 'agentUpdate', at: 1, update: { sessionUpdate: 'tool_call', toolCallId: 'c', title: 'run', kind: 'execute', status: 'in_progress' } },
      { type: 'interrupted', at: 2, reason: 'window closed' },
      { type: 'syntheticToolResult', at: 2, toolCallId: 'c', status: 'cancelled', text: 'interrupted before a result was produced' },
    ]);
    const tool = state.entries.find((e) => e.kind === 'toolCall');
    assert.ok(tool?.kind === 'toolCall');
    assert.strictEqual(tool.toolCall.status, 'cancelled');
    assert.ok(state.entries.some((e) => e.kind === 'notice' && e.notice.kind === 'interrupted'));
  });

  it('a prompt that replaced the exchange before it says how, and whether the agent\'s history lost that exchange', () => {
    const state = fold([{ type: 'userPrompt', at: 1, source: 'user', text: 'again', redo: { how: 'regenerate', replaced: true } }]);
    const entry = state.entries[0];
    assert.ok(entry.kind === 'user');
    assert.deepStrictEqual(entry.redo, { how: 'regenerate', replaced: true });
  });

  it('a wakeup prompt becomes a wakeup entry naming its tasks', () => {
    const state = fold([
      { type: 'userPrompt', at: 1, source: 'wakeup', text: '[IMPORTANT: Background task t-1 completed (exit code 0).\n…]\n\n[IMPORTANT: Background task t-2 matched "listening"…]' },
    ]);
    const entry = state.entries[0];
    assert.ok(entry.kind === 'wakeup');
    assert.deepStrictEqual(entry.taskIds, ['t-1', 't-2']);
  });

  it('a wakeup record names its tasks as data; the text is not parsed for them', () => {
    const state = fold([
      // The text names other ids than the record on purpose: only the record's `taskIds` count.
      { type: 'userPrompt', at: 1, source: 'wakeup', taskIds: ['t-9', 'weird id'], text: '[IMPORTANT: Background task t-1 completed (exit code 0).\n…]' },
      { type: 'userPrompt', at: 2, source: 'wakeup', taskIds: [], text: 'no task named here' },
    ]);
    const [first, second] = state.entries;
    assert.ok(first.kind === 'wakeup' && second.kind === 'wakeup');
    assert.deepStrictEqual(first.taskIds, ['t-9', 'weird id']);
    assert.deepStrictEqual(second.taskIds, []);
  });

  it('a wakeup record written before records carried task ids still names its tasks (from its text)', () => {
    const old = parseTranscriptRecord(JSON.parse('{"type":"userPrompt","at":1,"turnId":"w1","source":"wakeup","text":"[IMPORTANT: Background task t-3 was killed (SIGTERM).\\n…]\\n\\n[IMPORTANT: Background task t-4 completed (exit code 1).\\n…]"}'));
    assert.ok(old);
    const entry = fold([old]).entries[0];
    assert.ok(entry.kind === 'wakeup');
    // As before this record shape: the text's "completed"/"matched" headlines are what names them.
    assert.deepStrictEqual(entry.taskIds, ['t-4']);
  });

  it('plans update one entry per turn', () => {
    const plan = (status: string): TranscriptRecord => ({ type: 'agentUpdate', at: 1, update: { sessionUpdate: 'plan', entries: [{ content: 'step', priority: 'high', status }] } });
    const state = fold([{ type: 'turnStarted', at: 0, turnId: 'x', source: 'user', epoch: 1 }, plan('pending'), plan('completed')]);
    const plans = state.entries.filter((e) => e.kind === 'plan');
    assert.strictEqual(plans.length, 1);
    assert.ok(plans[0].kind === 'plan');
    assert.strictEqual(plans[0].items[0].status, 'completed');
  });
});
