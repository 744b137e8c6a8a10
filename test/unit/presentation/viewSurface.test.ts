// An editor tab's surface: every message goes to the tab's own session, a message naming another session is
// refused, and the snapshot is the tab's session's model whoever built it.

import * as assert from 'node:assert/strict';
import { SessionViewChannel } from '../../../src/extension/presentation/sessionViewChannel';
import type { IntentHandlers } from '../../../src/extension/presentation/viewHandlers';
import { tabSurface } from '../../../src/extension/presentation/viewSurface';
import { emptySnapshot, type SessionSnapshot } from '../../../src/shared/sessionView';
import type { HostMessage, WebviewMessage } from '../../../src/shared/webviewProtocol';

const quiet = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A tab's channel whose handlers record the session each message was aimed at (`-`: a handler that aims at none). */
function tab(snapshot: () => SessionSnapshot = () => emptySnapshot()) {
  const calls: [string, unknown][] = [];
  const posted: HostMessage[] = [];
  const aimed = (m: WebviewMessage & { sessionId?: string }, view: { aim(id: string | undefined): string | undefined }) => {
    const { type, id: _id, ...intent } = m;
    calls.push([type, { ...intent, sessionId: view.aim(m.sessionId) }]);
  };
  const handlers = {
    prompt: aimed, stop: aimed, approval: aimed, dropUris: aimed, redo: aimed,
    openElicitationUrl: (m: WebviewMessage & { requestId: string }, view: { aim(id: string | undefined): string | undefined }) => void calls.push(['openElicitationUrl', { requestId: m.requestId, sessionId: view.aim(undefined) }]),
  } as unknown as IntentHandlers;
  const channel = new SessionViewChannel((m) => void posted.push(m), tabSurface('s1', snapshot), handlers, quiet);
  return { channel, calls, posted };
}

describe('an editor tab\'s surface', () => {
  it('aims every intent at the tab\'s session, with or without the view naming it', async () => {
    const { channel, calls } = tab();
    await channel.receive({ type: 'prompt', id: 'w1', text: 'hi' });
    await channel.receive({ type: 'stop', id: 'w2', sessionId: 's1' });
    await channel.receive({ type: 'approval', id: 'w3', requestId: 'r1', decision: 'allowOnce' });
    await channel.receive({ type: 'dropUris', id: 'w4', uris: ['file:///ws/a'] });
    await channel.receive({ type: 'openElicitationUrl', id: 'w5', requestId: 'e1' });
    await channel.receive({ type: 'redo', id: 'w6', entryId: 'user-1', how: 'retry' });
    assert.deepEqual(calls, [
      ['prompt', { text: 'hi', sessionId: 's1' }],
      ['stop', { sessionId: 's1' }],
      ['approval', { requestId: 'r1', decision: 'allowOnce', sessionId: 's1' }],
      ['dropUris', { uris: ['file:///ws/a'], sessionId: 's1' }],
      ['openElicitationUrl', { requestId: 'e1', sessionId: 's1' }],
      ['redo', { entryId: 'user-1', how: 'retry', sessionId: 's1' }],
    ]);
  });

  it('refuses an intent naming another session, and passes nothing on', async () => {
    const { channel, calls, posted } = tab();
    await channel.receive({ type: 'prompt', id: 'w1', sessionId: 's2', text: 'hi' });
    await channel.receive({ type: 'stop', id: 'w2', sessionId: 's2' });
    await channel.receive({ type: 'redo', id: 'w3', sessionId: 's2', entryId: 'user-1', how: 'edit', text: 'x' });
    assert.deepEqual(calls, []);
    assert.deepEqual(posted.map((m) => m.type === 'error' && m.requestId), ['w1', 'w2', 'w3']);
    assert.ok(posted.every((m) => m.type === 'error' && /This tab shows another session/.test(m.message)));
  });

  it('answers `ready` with the tab\'s own session\'s model', async () => {
    const snapshot = { ...emptySnapshot(), session: { id: 's1', title: 'Tab', createdAt: 1 } };
    const { channel, posted } = tab(() => snapshot);
    assert.equal(tabSurface('s1', () => snapshot).snapshot(), snapshot);
    await channel.receive({ type: 'ready', id: 'w1' });
    assert.deepEqual(posted, [{ type: 'snapshot', seq: 1, snapshot }]);
  });
});
