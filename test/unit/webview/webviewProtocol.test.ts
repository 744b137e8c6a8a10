// The webview ↔ host protocol at its edge: valid messages pass, hostile and malformed ones are
// rejected with a reason that says why.

import * as assert from 'node:assert/strict';
import {
  parseHostMessage, parseWebviewMessage, webviewLimits, type WebviewMessage,
} from '../../../src/shared/webviewProtocol';
import { contextLimits, maxImageBase64Chars } from '../../../src/shared/promptContext';
import { longTranscript, snapshotWith } from './viewBuilders';

function rejected(raw: unknown): string {
  const result = parseWebviewMessage(raw);
  assert.equal(result.ok, false, `expected rejection of a ${typeof raw}`);
  return result.ok ? '' : result.reason;
}

describe('webview protocol: messages from the webview', () => {
  const valid: WebviewMessage[] = [
    { type: 'ready', id: 'w1' },
    { type: 'prompt', id: 'w2', sessionId: 's1', text: 'hello' },
    { type: 'prompt', id: 'w2b', text: 'no session yet' },
    { type: 'stop', id: 'w3', sessionId: 's1' },
    { type: 'resume', id: 'w4' },
    { type: 'approval', id: 'w5', sessionId: 's1', requestId: 'perm-1', decision: 'allowAlways' },
    { type: 'showTaskOutput', id: 'w6', taskId: 't-42' },
    { type: 'killTask', id: 'w7', taskId: 't-42' },
    { type: 'openSession', id: 'w8', sessionId: 's2' },
    { type: 'openSession', id: 'w8b' },
    { type: 'openFile', id: 'w8c', path: '/ws/src/a.ts', line: 12 },
    { type: 'openFile', id: 'w8d', path: '/ws/README.md' },
    { type: 'noticeAction', id: 'w8e', sessionId: 's1', action: 'signIn' },
    { type: 'noticeAction', id: 'w8f', action: 'openLog' },
    { type: 'ping', id: 'w9' },
    { type: 'history', id: 'w9b', snapshotSeq: 3 },
    { type: 'error', id: 'w10', message: 'dropped a host message' },
  ];

  for (const message of valid) {
    it(`accepts ${message.type} ${JSON.stringify(message)}`, () => {
      const result = parseWebviewMessage(structuredClone(message));
      assert.deepEqual(result, { ok: true, message });
    });
  }

  it('takes an edit only with its new text, a retry or regenerate only without', () => {
    assert.ok(parseWebviewMessage({ type: 'redo', id: 'r1', sessionId: 's1', entryId: 'user-1', how: 'edit', text: 'better' }).ok);
    assert.ok(parseWebviewMessage({ type: 'redo', id: 'r2', sessionId: 's1', entryId: 'user-1', how: 'retry' }).ok);
    assert.ok(parseWebviewMessage({ type: 'redo', id: 'r3', entryId: 'agent-2', how: 'regenerate' }).ok);
    assert.match(rejected({ type: 'redo', id: 'r4', entryId: 'user-1', how: 'edit' }), /an edit carries its new text/);
    assert.match(rejected({ type: 'redo', id: 'r5', entryId: 'user-1', how: 'retry', text: 'sneaked' }), /an edit carries its new text/);
    assert.match(rejected({ type: 'redo', id: 'r6', entryId: 'user-1', how: 'edit', text: '   ' }), /needs text/);
    rejected({ type: 'redo', id: 'r7', entryId: 'user-1', how: 'rewrite' });
    rejected({ type: 'redo', id: 'r8', entryId: '', how: 'retry' });
  });

  it('rejects a notice action that is not one of the remedies', () => {
    assert.match(rejected({ type: 'noticeAction', id: 'x1', action: 'runCommand' }), /action/);
    assert.match(rejected({ type: 'noticeAction', id: 'x2', action: 'openLog', command: 'workbench.action.terminal.new' }), /command|unrecognized/i);
  });

  it('rejects non-objects', () => {
    for (const raw of [null, undefined, 'ready', 42, true, [], [{ type: 'ready', id: 'w1' }]]) {
      assert.match(rejected(raw), /not an object/);
    }
  });

  it('rejects unknown kinds', () => {
    assert.match(rejected({ type: 'deleteEverything', id: 'w1' }), /message "deleteEverything"/);
    assert.match(rejected({ id: 'w1' }), /message without a type/);
  });

  it('rejects wrong types with the path of the bad field', () => {
    assert.match(rejected({ type: 'prompt', id: 'w1', text: 42 }), /text/);
    assert.match(rejected({ type: 'approval', id: 'w1', requestId: 'p', decision: 'allowForever' }), /decision/);
    assert.match(rejected({ type: 'ping', id: 7 }), /id/);
    assert.match(rejected({ type: 'killTask', id: 'w1', taskId: { $gt: '' } }), /taskId/);
    assert.match(rejected({ type: 'prompt', id: 'w1', text: '' }), /text/);
    assert.match(rejected({ type: 'openFile', id: 'w1', path: '/a', line: 0 }), /line/);
    assert.match(rejected({ type: 'openFile', id: 'w1', path: '/a', line: 1.5 }), /line/);
    assert.match(rejected({ type: 'openFile', id: 'w1', path: '' }), /path/);
    assert.match(rejected({ type: 'openFile', id: 'w1', path: `/${'a'.repeat(5_000)}` }), /path/);
  });

  it('rejects missing request ids and ids outside the allowed alphabet', () => {
    assert.match(rejected({ type: 'ping' }), /id/);
    assert.match(rejected({ type: 'ping', id: '' }), /id/);
    assert.match(rejected({ type: 'ping', id: 'a b<script>' }), /request id/);
    assert.match(rejected({ type: 'ping', id: 'x'.repeat(65) }), /id/);
  });

  it('rejects unknown keys rather than passing them on', () => {
    assert.match(rejected({ type: 'stop', id: 'w1', force: true }), /force/);
  });

  it('rejects oversize strings', () => {
    assert.ok(parseWebviewMessage({ type: 'prompt', id: 'w1', text: 'x'.repeat(webviewLimits.promptChars) }).ok);
    assert.match(rejected({ type: 'prompt', id: 'w1', text: 'x'.repeat(webviewLimits.promptChars + 1) }), /text/);
    assert.match(rejected({ type: 'error', id: 'w1', message: 'x'.repeat(200_000) }), /larger than/);
    assert.match(rejected({ type: 'killTask', id: 'w1', taskId: 'x'.repeat(257) }), /taskId/);
  });

  it('rejects prototype-pollution keys, as JSON and structured clone deliver them', () => {
    const viaJson = JSON.parse('{"type":"ping","id":"w1","__proto__":{"polluted":true}}');
    assert.match(rejected(viaJson), /forbidden key "__proto__"/);
    const nested = JSON.parse('{"type":"approval","id":"w1","requestId":"p","decision":"reject","x":{"constructor":{"prototype":{"polluted":true}}}}');
    assert.match(rejected(nested), /forbidden key "constructor"/);
    assert.match(rejected({ type: 'ping', id: 'w1', prototype: 1 }), /forbidden key "prototype"/);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'nothing leaked into Object.prototype');
  });

  it('rejects objects that are not plain data', () => {
    assert.match(rejected({ type: 'prompt', id: 'w1', text: new Date(0) }), /not a plain object/);
    assert.match(rejected({ type: 'prompt', id: 'w1', text: new Map() }), /not a plain object/);
    assert.match(rejected(Object.assign(Object.create({ inherited: true }), { type: 'ping', id: 'w1' })), /not a plain object/);
    assert.match(rejected({ type: 'prompt', id: 'w1', text: () => 'x' }), /unsupported function/);
    assert.match(rejected({ type: 'ping', id: 'w1', n: Number.NaN }), /non-finite/);
  });

  it('rejects deep nesting and wide messages without recursing', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    assert.match(rejected({ type: 'ping', id: 'w1', deep }), /nested deeper|too many values/);
    const wide = { type: 'ping', id: 'w1', list: Array.from({ length: 1_000 }, (_, i) => i) };
    assert.match(rejected(wide), /too many values/);
  });
});

describe('webview protocol: messages from the host', () => {
  it('accepts a snapshot of a 10,000-entry session, events, pong and error', () => {
    assert.ok(parseHostMessage({ type: 'snapshot', seq: 1, snapshot: snapshotWith(longTranscript(10_000)) }).ok);
    assert.ok(parseHostMessage({ type: 'event', seq: 2, event: { type: 'chunkAppended', entryId: 'a1', entryKind: 'agent', text: 'more', at: 5 } }).ok);
    assert.ok(parseHostMessage({ type: 'pong', id: 'w9' }).ok);
    assert.ok(parseHostMessage({ type: 'error', requestId: 'w2', message: 'session is busy' }).ok);
  });

  it('rejects a snapshot with one malformed entry, naming where', () => {
    const snapshot = snapshotWith(longTranscript(30));
    (snapshot.entries[17] as { kind: string }).kind = 'bogus';
    const result = parseHostMessage({ type: 'snapshot', seq: 1, snapshot });
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /entries\.17/);
  });

  it('rejects events of unknown type, bad notices and bad tasks', () => {
    assert.equal(parseHostMessage({ type: 'event', seq: 1, event: { type: 'explode' } }).ok, false);
    const notice = { id: 'n', kind: 'panic', text: 'x', resumable: true, at: 1 };
    assert.equal(parseHostMessage({ type: 'event', seq: 1, event: { type: 'turnStatusChanged', turn: { phase: 'idle', silenceSeconds: 0 }, notice } }).ok, false);
    const task = { id: 't', command: 'x', status: 'running', startedAt: -5 };
    assert.equal(parseHostMessage({ type: 'event', seq: 1, event: { type: 'taskChanged', task } }).ok, false);
    assert.equal(parseHostMessage({ type: 'event', seq: -1, event: { type: 'streamEnded', entryId: 'a' } }).ok, false);
  });

  it('rejects prototype-pollution keys inside tool inputs', () => {
    const event = JSON.parse('{"type":"toolCallCreated","at":1,"toolCall":{"toolCallId":"t","title":"x","kind":"edit","status":"pending","content":[],"rawInput":{"__proto__":{"admin":true}}}}');
    const result = parseHostMessage({ type: 'event', seq: 1, event });
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /__proto__/);
  });
});

describe('webview protocol: tail snapshots and history', () => {
  it('accepts a tail snapshot and the history answer, and validates the history entries', () => {
    assert.ok(parseHostMessage({ type: 'snapshot', seq: 4, snapshot: snapshotWith(longTranscript(300)), omitted: 9_700 }).ok);
    assert.ok(parseHostMessage({ type: 'history', requestId: 'w2', snapshotSeq: 4, entries: longTranscript(9_700) }).ok);
    const bad = longTranscript(500);
    (bad[12] as { at: unknown }).at = 'yesterday';
    const result = parseHostMessage({ type: 'history', requestId: 'w2', snapshotSeq: 4, entries: bad });
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /entries\.12\.at/);
    assert.equal(parseHostMessage({ type: 'snapshot', seq: 4, snapshot: snapshotWith(), omitted: -1 }).ok, false);
  });

  it('accepts the webview\'s history request only with a snapshot sequence number', () => {
    assert.ok(parseWebviewMessage({ type: 'history', id: 'w3', snapshotSeq: 4 }).ok);
    assert.equal(parseWebviewMessage({ type: 'history', id: 'w3' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'history', id: 'w3', snapshotSeq: 1.5 }).ok, false);
  });
});

describe('webview protocol: prompt context and elicitations', () => {
  it('accepts a prompt with mentions and an image, and a prompt of attachments only', () => {
    const mentions = [
      { kind: 'file', path: 'src/a.ts' },
      { kind: 'selection', path: 'src/a.ts', startLine: 1, endLine: 2, text: 'x' },
      { kind: 'problems', count: 1, text: 'a.ts:1:1 error: e' },
      { kind: 'image', name: 'p.png', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
    ];
    assert.equal(parseWebviewMessage({ type: 'prompt', id: 'w1', text: 'look', mentions }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'prompt', id: 'w1', text: '', mentions: [mentions[0]] }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'prompt', id: 'w1', text: '  ' }).ok, false, 'neither text nor attachments');
  });

  it('refuses an image that is not base64, too large, or of another type, and too many mentions', () => {
    const image = (patch: object) => ({ type: 'prompt', id: 'w1', text: 'x', mentions: [{ kind: 'image', name: 'p.png', mimeType: 'image/png', data: 'AAAA', ...patch }] });
    assert.equal(parseWebviewMessage(image({ data: '<script>' })).ok, false);
    assert.equal(parseWebviewMessage(image({ mimeType: 'image/svg+xml' })).ok, false);
    assert.equal(parseWebviewMessage(image({ data: 'A'.repeat(maxImageBase64Chars + 4) })).ok, false);
    const many = Array.from({ length: contextLimits.attachments + 1 }, (_, i) => ({ kind: 'file', path: `f${i}` }));
    assert.equal(parseWebviewMessage({ type: 'prompt', id: 'w1', text: 'x', mentions: many }).ok, false);
  });

  it('accepts an elicitation answer and a mention query; the host answers mentions', () => {
    assert.equal(parseWebviewMessage({ type: 'elicitation', id: 'w2', requestId: 'r1', action: 'accept', content: { name: 'x', n: 2, ok: true, tags: ['a'] } }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'elicitation', id: 'w2', requestId: 'r1', action: 'maybe' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'elicitation', id: 'w2', requestId: 'r1', action: 'accept', content: { o: { nested: 1 } } }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'mentionQuery', id: 'w3', query: 'src' }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'openElicitationUrl', id: 'w4', requestId: 'r1' }).ok, true);
    assert.equal(parseWebviewMessage({ type: 'openElicitationUrl', id: 'w4', requestId: 'r1', url: 'https://evil' }).ok, false, 'the view never names the URL');
    assert.equal(parseHostMessage({ type: 'mentions', requestId: 'w3', items: [{ kind: 'file', path: 'a.ts' }], images: false }).ok, true);
  });
});

describe('webview protocol: openDiff names a host-made edit id, never a path', () => {
  it('accepts an edit id and rejects paths, traversal, extra fields and long ids', () => {
    assert.equal(parseWebviewMessage({ type: 'openDiff', id: 'd1', editId: '3f2a9c1e-0b7d-4c1e-9a55-1f2e3d4c5b6a' }).ok, true);
    for (const editId of ['../../etc/passwd', '/ws/a.ts', 'a b', '', 'x'.repeat(65), 'e\u0000']) {
      assert.match(rejected({ type: 'openDiff', id: 'd2', editId }), /editId/);
    }
    assert.match(rejected({ type: 'openDiff', id: 'd3', editId: 'e-1', path: '/etc/passwd' }), /path|Unrecognized/);
    assert.match(rejected({ type: 'openDiff', id: 'd4', editId: 42 }), /editId/);
  });
});
