// The Markdown export of a transcript: fences nothing inside can close, hostile text kept inert,
// big sections cut with a note, and a long transcript produced piece by piece.

import * as assert from 'node:assert/strict';
import { entryMarkdown, fenced, inertMarkdown, inline, messageMarkdown, transcriptMarkdown, type ExportHeader } from '../../../src/extension/presentation/transcriptMarkdown';
import { exportFileName, transcriptEntries } from '../../../src/extension/presentation/transcriptExport';
import { emptySnapshot, type EntryView } from '../../../src/shared/sessionView';
import { applyHostEvent } from '../../../src/shared/sessionViewReducer';
import { TranscriptTranslator } from '../../../src/extension/presentation/transcriptTranslator';
import type { TranscriptRecord } from '../../../src/extension/core/store/transcriptRecords';
import { agentEntry, toolCall, userEntry } from '../webview/viewBuilders';

const header: ExportHeader = { title: 'Fix the build', sessionId: 's1', createdAt: Date.UTC(2026, 11, 1, 20, 0, 0), exportedAt: Date.UTC(2026, 11, 1, 21, 0, 0) };
const all = (entries: EntryView[]) => [...transcriptMarkdown(header, entries)].join('');

/** The fence lines of a document: opening and closing fences must pair up, nothing else may close one. */
function fenceBalance(markdown: string): { open: string | undefined } {
  let open: string | undefined;
  for (const line of markdown.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!m) continue;
    if (open === undefined) open = m[1];
    else if (m[1][0] === open[0] && m[1].length >= open.length && m[2].trim() === '') open = undefined;
  }
  return { open };
}

describe('transcript as Markdown', () => {
  it('renders messages, tool calls with input and output, wakeups and notices in order', () => {
    const md = all([
      userEntry('u1', 'Please run the tests'),
      agentEntry('a1', 'Running **npm test** now.'),
      { kind: 'toolCall', id: 'tool:t1', at: 2_000, toolCall: toolCall('t1', { title: 'run_command', status: 'completed', rawInput: { command: 'npm test' }, content: [{ type: 'text', text: '3 passing' }], endedAt: 4_000 }) },
      { kind: 'wakeup', id: 'w1', at: 5_000, text: 'Background task t7 completed (exit 0)', taskIds: ['t7'] },
      { kind: 'notice', id: 'n1', at: 6_000, notice: { id: 'n1', kind: 'error', text: 'The agent exited.', resumable: false, at: 6_000 } },
    ]);
    assert.match(md, /^# Fix the build\n\nSession `s1` · started 2026-12-01T20:00:00Z · exported 2026-12-01T21:00:00Z\n/);
    const order = ['## You', 'Please run the tests', '## Agent', 'Running **npm test** now.', '### Tool: run\\_command · done · 3 s', '"command": "npm test"', '3 passing', 't7', 'woke the agent', '> **Error**', 'The agent exited.'];
    let at = -1;
    for (const part of order) {
      const i = md.indexOf(part, at + 1);
      assert.ok(i > at, `"${part}" follows what came before in:\n${md}`);
      at = i;
    }
    assert.equal(fenceBalance(md).open, undefined);
  });

  it('exports a stop under the view\'s word for it, with the details the view folds', () => {
    const stop = { id: 'n2', kind: 'interrupted' as const, text: 'Stopped: no progress for 30 s', detail: 'No progress for 30 s (waiting on: model).\nTurn aborted by the liveness watchdog.', resumable: false, at: 7_000 };
    const md = all([{ kind: 'notice', id: 'n2', at: 7_000, notice: stop }]);
    assert.match(md, /> \*\*Stopped\*\* · [^\n]+\n>\n> Stopped: no progress for 30 s\n> No progress for 30 s \(waiting on: model\)\.\n> Turn aborted by the liveness watchdog\.\n/);
  });

  it('fences tool output with a fence longer than any backtick run inside it', () => {
    const output = 'before\n```\nnot the end\n````\nstill inside ``````` and more\n';
    const block = fenced(output, 'text');
    assert.match(block, /^````````text\n/, 'eight backticks: one more than the longest run (seven)');
    assert.ok(block.endsWith('\n````````\n'));
    const md = all([{ kind: 'toolCall', id: 'tool:t1', at: 1, toolCall: toolCall('t1', { status: 'completed', content: [{ type: 'text', text: output }] }) }, agentEntry('a1', 'after the tool')]);
    assert.equal(fenceBalance(md).open, undefined);
    assert.match(md, /````````\n\n## Agent/, 'the agent message after the output is outside the fence');
  });

  it('keeps an info string from breaking its fence', () => {
    assert.match(fenced('x', 'js`on <b>'), /^```jsonb\nx\n```\n$/);
  });

  it('closes a fence an agent left open, so it cannot swallow the entries after it', () => {
    const md = all([agentEntry('a1', 'Here:\n```ts\nconst x = 1;\n'), userEntry('u2', 'next question')]);
    assert.equal(fenceBalance(md).open, undefined);
    assert.match(md, /const x = 1;\n+```\n\n## You/);
  });

  it('escapes raw HTML from an agent outside code, and leaves code alone', () => {
    const source = 'Look <img src="http://example.invalid/x.png"> and <!-- the rest is hidden\nuse `a <b> tag` here\n```html\n<div>kept</div>\n```\n1 < 2 stays';
    const md = inertMarkdown(source);
    assert.ok(!/<img|<!--/.test(md), md);
    assert.match(md, /&lt;img src=/);
    assert.match(md, /&lt;!-- the rest/);
    assert.match(md, /`a <b> tag`/, 'a code span keeps its text');
    assert.match(md, /\n<div>kept<\/div>\n/, 'a fenced block keeps its text');
    assert.match(md, /1 < 2 stays/, 'a < that starts no tag is left as it is');
  });

  it('drops control characters and bidi overrides but keeps tabs and line breaks', () => {
    const text = 'a\u0007b\u001b[31mred\u001b[0m\tc\r\nd\u202eevil\u2066';
    assert.equal(messageMarkdown(userEntry('u1', text)), 'ab[31mred[0m\tc\ndevil');
    const block = fenced('\u0000bell\u0007\n');
    assert.equal(block, '```\nbell\n```\n');
  });

  it('escapes Markdown in plain text: titles, notices and tool names cannot make links, emphasis or headings', () => {
    assert.equal(inline('[click](http://x) *b* <i>\nnext'), '\\[click\\](http://x) \\*b\\* \\<i\\> next');
    const md = entryMarkdown({ kind: 'notice', id: 'n', at: 1, notice: { id: 'n', kind: 'info', text: '# not a heading\n- not a list\n> not a quote', resumable: false, at: 1 } });
    assert.ok(!/^> #/m.test(md) && !/^> - /m.test(md) && !/^> > /m.test(md), md);
    const title = [...transcriptMarkdown({ ...header, title: '# Title <script>' }, [])].join('');
    assert.match(title, /^# # Title \\<script\\>/);
  });

  it('cuts a huge output with a note saying how much was left out', () => {
    const big = 'x'.repeat(500);
    const md = entryMarkdown({ kind: 'toolCall', id: 'tool:t', at: 1, toolCall: toolCall('t', { status: 'completed', content: [{ type: 'text', text: big }] }) }, { sectionChars: 100 });
    assert.ok(!md.includes('x'.repeat(101)));
    assert.match(md, /… \(400 more characters not exported\)/);
  });

  it('renders a diff of an edit', () => {
    const md = entryMarkdown({ kind: 'toolCall', id: 'tool:e', at: 1, toolCall: toolCall('e', { kind: 'edit', status: 'completed', content: [{ type: 'diff', path: 'src/a.ts', oldText: 'one\ntwo\n', newText: 'one\nTWO\n' }] }) });
    assert.match(md, /Edit of `src\/a.ts`:\n\n```diff\n/);
    assert.match(md, /\n-two\n\+TWO\n/);
  });

  it('produces a long transcript piece by piece, reading entries only as it goes', () => {
    let read = 0;
    function* entries(): Generator<EntryView> {
      for (let i = 0; i < 1_000_000; i++) {
        read++;
        yield userEntry(`u${i}`, `message ${i}`);
      }
    }
    const pieces = transcriptMarkdown(header, entries());
    pieces.next();
    for (let i = 0; i < 10; i++) pieces.next();
    assert.ok(read <= 11, `read ${read} entries for 10 pieces`);
  });

  it('Copy gives the Markdown source of a user or agent message only', () => {
    assert.equal(messageMarkdown(agentEntry('a', '**bold** and `code`')), '**bold** and `code`');
    assert.equal(messageMarkdown(userEntry('u', 'plain <b>')), 'plain <b>');
    assert.equal(messageMarkdown({ kind: 'thought', id: 't', text: 'x', streaming: false, at: 1 }), undefined);
  });

  it('builds the entries of a whole transcript the way the session view does', () => {
    const entries = transcriptEntries([
      { type: 'userPrompt', at: 1, text: 'hi', source: 'user' },
      { type: 'agentUpdate', at: 2, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hel' } } },
      { type: 'agentUpdate', at: 3, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'lo' } } },
      { type: 'notice', at: 4, level: 'error', text: 'boom' },
    ]);
    assert.deepEqual(entries.map((e) => e.kind), ['user', 'agent', 'notice']);
    assert.equal(messageMarkdown(entries[1]), 'hello');
  });
});

describe('entries of a long transcript', () => {
  it('are the ones the session view folds, also when a call settles hundreds of entries later', () => {
    const records: TranscriptRecord[] = [];
    let at = 1;
    records.push({ type: 'agentUpdate', at: at++, update: { sessionUpdate: 'tool_call', toolCallId: 'slow', title: 'slow build', kind: 'execute', status: 'in_progress' } });
    for (let t = 0; t < 400; t++) {
      records.push({ type: 'userPrompt', at: at++, text: `q${t}`, source: 'user' });
      records.push({ type: 'agentUpdate', at: at++, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `a${t} ` } } });
      records.push({ type: 'agentUpdate', at: at++, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'more' } } });
      records.push({ type: 'agentUpdate', at: at++, update: { sessionUpdate: 'tool_call', toolCallId: `c${t}`, title: `call ${t}`, kind: 'read', status: 'in_progress' } });
      records.push({ type: 'agentUpdate', at: at++, update: { sessionUpdate: 'tool_call_update', toolCallId: `c${t}`, status: 'completed' } });
    }
    records.push({ type: 'agentUpdate', at: at++, update: { sessionUpdate: 'tool_call_update', toolCallId: 'slow', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'built' } }] } });
    records.push({ type: 'agentUpdate', at: at++, update: { sessionUpdate: 'tool_call_update', toolCallId: 'c3', status: 'failed' } });
    const translator = new TranscriptTranslator();
    let reference = emptySnapshot();
    for (const r of records) for (const e of translator.translate(r)) reference = applyHostEvent(reference, e);
    const entries = transcriptEntries(records);
    assert.ok(entries.length > 1_000);
    assert.deepEqual(entries, reference.entries);
  });
});

describe('export file name', () => {
  it('comes from the title, safe on every file system', () => {
    assert.equal(exportFileName('Fix the build: step 2/3'), 'Fix-the-build-step-2-3.md');
    assert.equal(exportFileName('../../etc/passwd'), 'etc-passwd.md');
    assert.equal(exportFileName('a\u0000b\nc\u202e'), 'abc.md');
    assert.equal(exportFileName('   '), 'session.md');
    assert.equal(exportFileName('...'), 'session.md');
    assert.equal(exportFileName('CON'), 'CON-session.md');
    assert.equal(exportFileName('Überprüfung der Änderungen'), 'Überprüfung-der-Änderungen.md');
    const long = exportFileName('word '.repeat(100));
    assert.ok(long.length <= 83 && long.endsWith('.md') && !long.includes('-.md'), long);
  });
});
