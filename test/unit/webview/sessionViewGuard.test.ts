// The entry guard in front of zod: it may only ever accept what zod's entry schema accepts, as it is;
// everything else is zod's to judge, so a host message is accepted, and rejected with the same reason,
// exactly as when zod parsed all of it.

import * as assert from 'node:assert/strict';
import { checkJsonShape } from '../../../src/shared/jsonGuard';
import type { EntryView } from '../../../src/shared/sessionView';
import { checkEntries, isCommonEntry } from '../../../src/shared/sessionViewGuard';
import { entrySchema, viewLimits } from '../../../src/shared/sessionViewSchema';
import { hostMessageSchema, parseHostMessage } from '../../../src/shared/webviewProtocol';
import { agentEntry, longTranscript, snapshotWith, task, toolCall, userEntry } from './viewBuilders';
import { seededRandom as random } from '../../fakes/seededRandom';

const longId = 'i'.repeat(viewLimits.id + 1);
const longTitle = 't'.repeat(viewLimits.title + 1);
const longText = 'x'.repeat(viewLimits.text + 1);
/** Values a hostile or buggy host might put anywhere. */
const oddValues: unknown[] = [
  undefined, null, true, false, 0, -0, -1, 1.5, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, '', 'x', 'bogus', 'user', 'agent',
  'toolCall', 'text', 'diff', 'terminal', 'execute', 'completed', 'wakeup', longId, longTitle, longText, [], [{}], {}, { type: 'text' },
  { type: 'text', text: 'ok' }, { path: 'a.ts' }, { path: 'a.ts', line: -1 }, { path: 'a.ts', line: 1.5 }, Array.from({ length: 1_001 }, () => ({ type: 'text', text: '' })),
];
const extraKeys = ['extra', 'attachments', 'edits', 'kind', 'source', 'streaming', 'toolCall', 'oldText', 'line', 'toString'];

const bases: EntryView[] = [
  userEntry('u1'),
  { kind: 'user', id: 'u2', text: '', at: 0, source: 'resume' },
  { kind: 'user', id: 'u3', text: 'with a file', at: 5, attachments: [{ kind: 'file', name: 'a.ts', uri: 'file:///a.ts' }] },
  agentEntry('a1', '**bold** and [a link](https://example.com)'),
  agentEntry('a2', '', true),
  { kind: 'thought', id: 'th1', text: 'hmm', streaming: false, at: 7 },
  { kind: 'toolCall', id: 'tool:t1', at: 1, toolCall: toolCall('t1') },
  {
    kind: 'toolCall', id: 'tool:t2', at: 1,
    toolCall: toolCall('t2', {
      status: 'completed', endedAt: 2_000, rawInput: { command: 'npm test', nested: [1, { a: null }] }, rawOutput: 'ok',
      content: [{ type: 'text', text: 'ok' }, { type: 'diff', path: 'src/a.ts', oldText: null, newText: 'x' }, { type: 'diff', path: 'b', newText: '' }, { type: 'terminal', terminalId: 'term-1' }],
      locations: [{ path: 'src/a.ts', line: 3 }, { path: 'src/b.ts' }],
    }),
  },
  { kind: 'toolCall', id: 'tool:t3', at: 1, toolCall: toolCall('t3', { edits: [{ editId: 'e-1', path: 'a.ts', added: 1, removed: 0, created: false }] }) },
  { kind: 'plan', id: 'p1', at: 1, items: [{ content: 'step', priority: 'high', status: 'pending' }] },
  { kind: 'notice', id: 'n1', at: 1, notice: { id: 'n1', kind: 'info', text: 'note', resumable: false, at: 1 } },
  { kind: 'wakeup', id: 'w1', at: 1, text: 'done', taskIds: ['t1'] },
];

/** Every object or array inside `value`, with a way to reach it from a fresh copy. */
function containers(value: unknown, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return out;
  out.push(path);
  for (const [k, v] of Object.entries(value)) containers(v, [...path, Array.isArray(value) ? Number(k) : k], out);
  return out;
}

function at(value: unknown, path: (string | number)[]): Record<string | number, unknown> {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], value) as Record<string | number, unknown>;
}

/** One random change somewhere in a copy of `base`: a key dropped, added, or set to an odd value. */
function mutate(base: object, rnd: () => number): unknown {
  const copy = structuredClone(base) as unknown;
  const spots = containers(copy);
  const target = at(copy, spots[Math.floor(rnd() * spots.length)]);
  const keys = Object.keys(target);
  const pick = rnd();
  const odd = oddValues[Math.floor(rnd() * oddValues.length)];
  if (pick < 0.2 && keys.length > 0) delete target[keys[Math.floor(rnd() * keys.length)]];
  else if (pick < 0.35) target[Array.isArray(target) ? keys.length : extraKeys[Math.floor(rnd() * extraKeys.length)]] = odd;
  else if (keys.length > 0) target[keys[Math.floor(rnd() * keys.length)]] = odd;
  return copy;
}

describe('session view entry guard', () => {
  it('takes the common entries as zod parses them, and leaves the rest to zod', () => {
    for (const entry of bases) {
      const parsed = entrySchema.safeParse(entry);
      assert.ok(parsed.success, `zod accepts ${entry.id}`);
      if (isCommonEntry(entry)) assert.deepEqual(entry, parsed.data);
    }
    for (const id of ['u1', 'u2', 'a1', 'a2', 'th1', 'tool:t1', 'tool:t2']) assert.ok(isCommonEntry(bases.find((e) => e.id === id)), `${id} takes the fast path`);
    for (const id of ['u3', 'tool:t3', 'p1', 'n1', 'w1']) assert.equal(isCommonEntry(bases.find((e) => e.id === id)), false, `${id} goes to zod`);
  });

  it('never accepts an entry zod refuses (8,000 random changes to valid entries)', () => {
    const rnd = random(15);
    let refusedByZod = 0;
    for (let i = 0; i < 8_000; i++) {
      const entry = mutate(bases[i % bases.length], rnd);
      const zod = entrySchema.safeParse(entry);
      if (!zod.success) refusedByZod++;
      if (isCommonEntry(entry)) {
        assert.ok(zod.success, `guard accepted what zod refuses: ${JSON.stringify(entry)?.slice(0, 300)}`);
        assert.deepEqual(entry, zod.data);
      }
    }
    assert.ok(refusedByZod > 2_000, `the mutations reach invalid entries (${refusedByZod})`);
  });

  it('checks a list as zod does: the same entries, or nothing when one is invalid', () => {
    const list: unknown[] = [...bases];
    assert.deepEqual(checkEntries(list), entrySchema.array().parse(list));
    assert.equal(checkEntries([...bases, { kind: 'bogus', id: 'x', at: 1 }]), undefined);
    assert.equal(checkEntries({ length: 1, 0: bases[0] }), undefined);
    assert.equal(checkEntries(undefined), undefined);
  });
});

describe('host messages through the entry guard', () => {
  /** What the webview did before the guard: the shape check (no undefined, NaN, …), then zod on the whole message. */
  function zodOnly(message: { type: unknown }): { success: true; data: unknown } | { success: false; reason: string } {
    const what = typeof message.type === 'string' ? `message "${message.type.slice(0, 40)}"` : 'message without a type';
    const shape = checkJsonShape(message, { maxDepth: 64, maxNodes: 5_000_000, maxChars: 200_000_000 });
    if (shape) return { success: false, reason: `${what}: ${shape}` };
    const parsed = hostMessageSchema.safeParse(message);
    if (parsed.success) return { success: true, data: parsed.data };
    const issues = parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`);
    return { success: false, reason: `${what}: ${issues.join('; ')}` };
  }

  it('accepts and rejects snapshots and history exactly as zod alone (2,000 random changes)', () => {
    const rnd = random(42);
    for (let i = 0; i < 2_000; i++) {
      const entries = longTranscript(6).concat(bases.slice(i % 3, (i % 3) + 4)) as unknown[];
      entries[Math.floor(rnd() * entries.length)] = mutate(entries[Math.floor(rnd() * entries.length)] as EntryView, rnd);
      const message = i % 2 === 0
        ? { type: 'snapshot', seq: 1, snapshot: snapshotWith(entries as EntryView[]), omitted: 3 }
        : { type: 'history', requestId: 'w2', snapshotSeq: 1, entries };
      const result = parseHostMessage(message);
      const expected = zodOnly(message);
      assert.equal(result.ok, expected.success, `${JSON.stringify(message).slice(0, 400)}\n${result.ok ? '' : result.reason}`);
      if (result.ok && expected.success) assert.deepEqual(result.message, expected.data);
      if (!result.ok && !expected.success) assert.equal(result.reason, expected.reason);
    }
  });

  it('accepts and rejects the rest of a snapshot exactly as zod alone (2,000 random changes)', () => {
    const full = {
      type: 'snapshot', seq: 7, omitted: 0,
      snapshot: snapshotWith(longTranscript(4), {
        session: { id: 's1', title: 'Session one', agent: 'vigil', model: 'm', cwd: '/ws', createdAt: 5, wakeups: 'no task server' },
        turn: { phase: 'running', turnId: 't1', startedAt: 1, lastActivityAt: 2, silenceSeconds: 0.5, waitingOn: 'model', where: 'another window' },
        notices: [{ id: 'n1', kind: 'error', text: 'failed', resumable: true, at: 3, actions: ['openLog', 'signIn'] }],
        tasks: [task('t1'), task('t2', { status: 'exited', endedAt: 9, exitCode: null, signal: 'SIGTERM' }), task('t3', { status: 'exited', exitCode: 1, signal: null })],
        agent: {
          options: [
            { kind: 'select', id: 'model', name: 'Model', category: 'model', current: 'a', choices: [{ value: 'a', name: 'A', description: 'first' }] },
            { kind: 'boolean', id: 'web', name: 'Web', current: false },
          ],
          commands: [{ name: 'explain', description: 'Explains', hint: 'a file' }],
          usage: { used: 10, size: 100, cost: { amount: 0.5, currency: 'USD' } },
        },
        elicitations: [],
      }),
    };
    const withApproval = { type: 'snapshot', seq: 1, snapshot: snapshotWith(longTranscript(2), { approvals: [{ requestId: 'p1', title: 'run it', at: 1 }] }) };
    const rnd = random(7);
    for (let i = 0; i < 2_000; i++) {
      const message = mutate(i % 5 === 0 ? withApproval : full, rnd) as { type: string };
      const result = parseHostMessage(message);
      const expected = zodOnly(message);
      assert.equal(result.ok, expected.success, `${JSON.stringify(message).slice(0, 600)}\n${result.ok ? '' : result.reason}`);
      if (result.ok && expected.success) assert.deepEqual(result.message, expected.data);
      if (!result.ok && !expected.success) assert.equal(result.reason, expected.reason);
    }
    const parsed = parseHostMessage(full);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.message, full);
  });

  it('names the bad entry of a long snapshot, and renders nothing from it', () => {
    const snapshot = snapshotWith(longTranscript(300));
    (snapshot.entries[250] as { markdown: unknown }).markdown = 42;
    const result = parseHostMessage({ type: 'snapshot', seq: 1, snapshot, omitted: 9_700 });
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /^message "snapshot": snapshot\.entries\.250\.markdown: /);
  });

  it('still checks the rest of the message when every entry is fine', () => {
    const bad = { type: 'snapshot', seq: 1, snapshot: { ...snapshotWith(longTranscript(30)), turn: { phase: 'exploding', silenceSeconds: 0 } } };
    const result = parseHostMessage(bad);
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /snapshot\.turn\.phase/);
    const extra = parseHostMessage({ type: 'history', requestId: 'w2', snapshotSeq: 1, entries: longTranscript(3), more: true });
    assert.equal(extra.ok, false);
    assert.match(extra.ok ? '' : extra.reason, /more/);
  });
});
