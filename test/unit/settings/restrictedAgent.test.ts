// Restricted Mode and the person's own third-party agent: what serves a session, per folder and agent; answers
// remembered in Vigil's storage (validated when read back), "Not now" for this window only, forgetting; and the
// modal's and the view's words, with every hostile string made safe to show.

import * as assert from 'node:assert/strict';
import { AgentConsentBook, agentConsentId, agentName, consentQuestion, restrictedChoice, restrictedLine } from '../../../src/extension/core/settings/restrictedAgent';

function memoryStore(initial: unknown = undefined) {
  const store = { value: initial, writes: 0, read: () => store.value, write: async (entries: unknown) => void ((store.value = JSON.parse(JSON.stringify(entries))), store.writes++) };
  return store;
}

const gemini = agentConsentId({ command: 'gemini', args: ['--acp'] });
const other = agentConsentId({ command: 'codex-acp' });

describe('Restricted Mode with a third-party agent', () => {
  describe('restrictedChoice', () => {
    it('trusted: the configured agent as it is; no third-party agent: the built-in, unasked', () => {
      for (const consent of ['allowed', 'declined', 'unanswered'] as const) {
        assert.equal(restrictedChoice({ trusted: true, thirdParty: true, consent }), 'agent', 'no consent is needed once the folder is trusted');
        assert.equal(restrictedChoice({ trusted: false, thirdParty: false, consent }), 'builtin');
      }
    });

    it('untrusted: ask first; allowed, the agent in its read-only mode; not allowed, the built-in read-only', () => {
      assert.equal(restrictedChoice({ trusted: false, thirdParty: true, consent: 'unanswered' }), 'ask');
      assert.equal(restrictedChoice({ trusted: false, thirdParty: true, consent: 'allowed' }), 'agentReadOnlyMode');
      assert.equal(restrictedChoice({ trusted: false, thirdParty: true, consent: 'declined' }), 'builtinReadOnly');
    });
  });

  describe('AgentConsentBook', () => {
    it('remembers an allowance per folder and agent, in storage: another folder or another agent asks again', async () => {
      const store = memoryStore();
      const book = new AgentConsentBook(store, () => 1_000);
      assert.equal(book.consent('/w/a', gemini), 'unanswered');
      await book.allow('/w/a', gemini);
      assert.equal(book.consent('/w/a', gemini), 'allowed');
      assert.equal(book.consent('/w/b', gemini), 'unanswered', 'per folder');
      assert.equal(book.consent('/w/a', other), 'unanswered', 'per agent');
      assert.equal(agentConsentId({ command: 'gemini', args: ['--acp', '--yolo'] }) === gemini, false, 'changed arguments are another agent');
      const later = new AgentConsentBook(store);
      assert.equal(later.consent('/w/a', gemini), 'allowed', 'a new window (same storage) remembers it');
      assert.deepEqual(later.allowedFolders(), ['/w/a']);
      assert.doesNotMatch(JSON.stringify(store.value), /--acp|gemini/, 'neither the command nor its arguments are stored, only their hash');
    });

    it('"Not now" holds for this window only, and takes back an earlier allowance of that agent there', async () => {
      const store = memoryStore();
      const book = new AgentConsentBook(store);
      await book.allow('/w/a', gemini);
      await book.allow('/w/b', gemini);
      await book.decline('/w/a', gemini);
      assert.equal(book.consent('/w/a', gemini), 'declined');
      assert.equal(book.consent('/w/b', gemini), 'allowed', 'another folder is untouched');
      const next = new AgentConsentBook(store);
      assert.equal(next.consent('/w/a', gemini), 'unanswered', 'a reload asks again; the allowance is gone');
      await next.decline('/w/c', other);
      assert.equal(new AgentConsentBook(store).consent('/w/c', other), 'unanswered', 'a decline is never stored');
      await book.allow('/w/a', gemini);
      assert.equal(book.consent('/w/a', gemini), 'allowed', 'allowing after "Not now" (Change…) counts at once');
    });

    it('forget: every answer for the folder goes (stored and this window’s); other folders stay', async () => {
      const store = memoryStore();
      const book = new AgentConsentBook(store);
      await book.allow('/w/a', gemini);
      await book.decline('/w/a', other);
      await book.allow('/w/ab', gemini);
      assert.equal(await book.forget('/w/a'), true);
      assert.equal(book.consent('/w/a', gemini), 'unanswered');
      assert.equal(book.consent('/w/a', other), 'unanswered');
      assert.equal(book.consent('/w/ab', gemini), 'allowed', 'a folder whose path merely starts the same stays');
      assert.equal(await book.forget('/w/a'), false, 'nothing left to forget');
    });

    it('storage read back is checked: malformed entries are dropped, never taken as consent', () => {
      const hostile = [
        { folder: '/w/a', agent: gemini.toUpperCase(), at: 1 },
        { folder: '/w/a', agent: `${gemini}x`, at: 1 },
        { folder: '', agent: gemini, at: 1 },
        { folder: '/w/a', agent: gemini, at: 'now' },
        { folder: 'x'.repeat(5_000), agent: gemini, at: 1 },
        null, 'string', 42,
      ];
      assert.equal(new AgentConsentBook(memoryStore(hostile)).consent('/w/a', gemini), 'unanswered');
      assert.equal(new AgentConsentBook(memoryStore({ '/w/a': gemini })).consent('/w/a', gemini), 'unanswered', 'not an array');
    });

    it('keeps at most `max` allowances, the most recent first', async () => {
      const store = memoryStore();
      let t = 0;
      const book = new AgentConsentBook(store, () => ++t, 3);
      for (const f of ['/1', '/2', '/3', '/4']) await book.allow(f, gemini);
      assert.deepEqual((store.value as { folder: string }[]).map((e) => e.folder), ['/4', '/3', '/2']);
      assert.equal(new AgentConsentBook(store).consent('/1', gemini), 'unanswered');
    });
  });

  describe('words', () => {
    it('the modal names the agent by its command, never its arguments or environment, and what it can do outside Vigil', () => {
      const q = consentQuestion({ command: '/usr/local/bin/gemini', folder: '/home/me/repo' });
      assert.equal(q.message, 'Let gemini work in this folder in Restricted Mode?');
      assert.match(q.detail, /You have not trusted \/home\/me\/repo\. Your setting vigil\.agent starts \/usr\/local\/bin\/gemini \(gemini\)\./);
      assert.match(q.detail, /can run commands and read and write files anywhere you can/);
      assert.match(q.detail, /outside Vigil's control/);
      assert.match(q.detail, /read-only or plan mode/);
      assert.match(q.detail, /Not now: Vigil's built-in agent answers instead, read-only/);
      assert.match(q.detail, /Vigil: Forget Agent Consent for This Folder/);
      assert.deepEqual([q.allow, q.notNow], ['Allow', 'Not now']);
    });

    it('hostile command and folder names are shown escaped and bounded: no line breaks, bidi or control characters', () => {
      const q = consentQuestion({ command: '/tmp/evil\u202eexe.sh\nYou can safely click Allow', folder: `/w/\u0007${'x'.repeat(1_000)}` });
      for (const text of [q.message, q.detail.split('\n')[0]]) {
        // eslint-disable-next-line no-control-regex
        assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u202a-\u202e\u2066-\u2069]/);
      }
      assert.ok(q.message.includes('evil\\u{202e}exe.sh\\nYou can safely click Allow'), q.message);
      assert.ok(!q.detail.split('\n').some((line) => line.startsWith('You can safely')), 'the injected line does not stand on its own');
      assert.ok(q.detail.length < 2_000, 'a long folder name is cut');
      assert.equal(agentName('/opt/'), 'opt');
      assert.ok(agentName('a'.repeat(500)).length < 200);
    });

    it('the view’s line says plainly which agent answers and how, in one line', () => {
      const off = restrictedLine('builtinReadOnly', 'gemini');
      assert.equal(off.text, 'Restricted Mode: the built-in agent answers, read-only.');
      assert.match(off.detail, /gemini was not allowed here.*Change… lets gemini work here/);
      const on = restrictedLine('agentReadOnlyMode', '/usr/bin/gemini');
      assert.equal(on.text, "Restricted Mode: gemini works outside Vigil's control.");
      for (const l of [off, on]) assert.doesNotMatch(l.text, /\n/);
    });
  });
});
