// The composer's `@` picker and attachment chips: which `@query` is being typed, keyboard handling,
// picking (the query leaves the draft), stale answers dropped, and the bounds on attachments.

import * as assert from 'node:assert/strict';
import { contextLimits, type MentionItem } from '../../../src/shared/promptContext';
import { Attachments, imageProblem, toBase64 } from '../../../src/webview/attachments';
import { MentionPicker, mentionTokenAt, optionId } from '../../../src/webview/mentionPicker';

const items: MentionItem[] = [
  { kind: 'selection', path: 'src/a.ts', startLine: 3, endLine: 5, text: 'x' },
  { kind: 'file', path: 'src/a.ts' },
  { kind: 'file', path: 'src/b.ts' },
];

describe('webview: the @ mention picker', () => {
  it('finds the @query at the cursor only at a word start, and not across spaces', () => {
    assert.deepEqual(mentionTokenAt('look at @src/a', 14), { start: 8, end: 14, query: 'src/a' });
    assert.deepEqual(mentionTokenAt('@', 1), { start: 0, end: 1, query: '' });
    assert.equal(mentionTokenAt('mail me@example.com', 19), undefined, 'an @ inside a word is not a mention');
    assert.equal(mentionTokenAt('@src/a and more', 15), undefined, 'the cursor left the token');
    assert.equal(mentionTokenAt('@'.concat('x'.repeat(contextLimits.queryChars + 1)), contextLimits.queryChars + 2), undefined);
  });

  it('asks the host once per new query and drops answers to older queries', () => {
    const p = new MentionPicker();
    assert.equal(p.onInput('hi @a', 5), 'a');
    p.pendingRequest = 'w1';
    assert.equal(p.onInput('hi @a', 5), undefined, 'same query, no new request');
    assert.equal(p.onInput('hi @ab', 6), 'ab');
    p.pendingRequest = 'w2';
    assert.equal(p.results('w1', items), false, 'a stale answer is dropped');
    assert.equal(p.results('w2', items, undefined, false), true);
    assert.equal(p.items.length, 3);
    assert.equal(p.imagesAccepted, false);
  });

  it('arrows move (wrapping), Enter picks, Escape closes, and keys pass through while closed', () => {
    const p = new MentionPicker();
    assert.equal(p.key('ArrowDown'), undefined, 'closed: the textarea keeps its keys');
    p.onInput('@', 1);
    p.pendingRequest = 'w1';
    p.results('w1', items);
    assert.equal(p.activeDescendant, optionId(0));
    assert.equal(p.key('ArrowUp'), 'moved');
    assert.equal(p.active, 2);
    assert.equal(p.key('ArrowDown'), 'moved');
    assert.equal(p.active, 0);
    p.key('ArrowDown');
    assert.equal(p.key('Enter'), 'pick');
    assert.equal(p.key('x'), undefined);
    assert.equal(p.key('Escape'), 'closed');
    assert.equal(p.open, false);
    assert.equal(p.activeDescendant, undefined);
  });

  it('a pick returns the item and the draft without its @query; Enter with no matches does not pick', () => {
    const p = new MentionPicker();
    p.onInput('explain @sr please', 11);
    p.pendingRequest = 'w1';
    p.results('w1', items);
    p.key('ArrowDown');
    const picked = p.pick('explain @sr please');
    assert.deepEqual(picked, { item: items[1], text: 'explain please', cursor: 8 });
    assert.equal(p.open, false);
    p.onInput('@zzz', 4);
    p.pendingRequest = 'w2';
    p.results('w2', []);
    assert.equal(p.key('Enter'), undefined, 'Enter then sends the message as typed');
  });
});

describe('webview: attachment chips', () => {
  it('keeps one chip per file, bounds the count, and removes chips', () => {
    const a = new Attachments();
    assert.equal(a.add({ kind: 'file', path: 'a.ts' }), undefined);
    assert.equal(a.add({ kind: 'file', path: 'a.ts' }), undefined);
    assert.equal(a.chips.length, 1);
    for (let i = 1; i < contextLimits.attachments; i += 1) a.add({ kind: 'file', path: `f${i}` });
    assert.match(a.add({ kind: 'file', path: 'one-too-many' }) ?? '', /At most 10 attachments/);
    a.remove(a.chips[0].id);
    assert.equal(a.chips.length, contextLimits.attachments - 1);
    assert.ok(!a.mentions().some((m) => m.kind === 'file' && m.path === 'a.ts'));
  });

  it('refuses images the agent does not take, of other types, too large, or too many, before reading them', () => {
    assert.match(imageProblem('p.png', 'image/png', 10, false, 0) ?? '', /does not take images/);
    assert.match(imageProblem('p.svg', 'image/svg+xml', 10, true, 0) ?? '', /not a PNG, JPEG, GIF or WebP/);
    assert.match(imageProblem('big.png', 'image/png', contextLimits.imageBytes + 1, true, 0) ?? '', /5\.0 MB/);
    assert.match(imageProblem('p.png', 'image/png', 10, undefined, contextLimits.images) ?? '', /At most 4 images/);
    assert.equal(imageProblem('p.png', 'image/png', 10, undefined, 0), undefined, 'unknown capability: the host decides at send');
  });

  it('encodes image bytes as base64 in chunks (large images do not overflow the call stack)', () => {
    const bytes = new Uint8Array(200_000).map((_, i) => i % 256);
    assert.equal(toBase64(bytes), Buffer.from(bytes).toString('base64'));
  });
});
