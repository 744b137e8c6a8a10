// The handlers of the view's messages that need no VS Code API, over a real channel: each message reaches the port
// its domain calls, aimed at the session its view means (the side bar's shown one when it names none), and an answer
// comes back under the message's request id.

import * as assert from 'node:assert/strict';
import { SessionViewChannel } from '../../../src/extension/presentation/sessionViewChannel';
import { checkpointHandlers } from '../../../src/extension/presentation/handlers/checkpoints';
import { composerHandlers } from '../../../src/extension/presentation/handlers/composer';
import { editorLinkHandlers } from '../../../src/extension/presentation/handlers/editorLinks';
import { optionHandlers } from '../../../src/extension/presentation/handlers/options';
import { sessionListHandlers } from '../../../src/extension/presentation/handlers/sessionList';
import { taskHandlers } from '../../../src/extension/presentation/handlers/tasks';
import { turnHandlers } from '../../../src/extension/presentation/handlers/turn';
import type { IntentHandlers } from '../../../src/extension/presentation/viewHandlers';
import { sideBarSurface, tabSurface, type ViewSurface } from '../../../src/extension/presentation/viewSurface';
import { emptySnapshot } from '../../../src/shared/sessionView';
import type { HostMessage } from '../../../src/shared/webviewProtocol';

const quiet = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function wired(surface: ViewSurface = sideBarSurface({ getSnapshot: emptySnapshot, currentSessionId: 'shown' })) {
  const calls: unknown[][] = [];
  const call = (...args: unknown[]) => {
    calls.push(args);
    return Promise.resolve();
  };
  const found = async (sessionId: string | undefined) => ({ items: [{ kind: 'file' as const, path: `${sessionId}.ts` }] });
  const handlers: IntentHandlers = {
    ...composerHandlers(() => ({ prompt: (i) => call('prompt', i), redo: (i) => call('redo', i), mentions: { choices: found, dropped: found, activeProblems: found } })),
    ...turnHandlers(() => ({ stop: (s) => call('stop', s), resume: (s) => call('resume', s) })),
    ...taskHandlers(() => ({ show: (t) => call('show', t), killBackgroundTask: (t) => call('kill', t) })),
    ...sessionListHandlers(() => ({ openOrPick: (s) => call('openOrPick', s) })),
    ...checkpointHandlers(() => ({ command: (id, target) => call(id, target) })),
    ...optionHandlers(() => ({ command: (id, target) => call(id, target), remedy: (action, s) => call('remedy', action, s) })),
    ...editorLinkHandlers(() => ({ openFile: (p, line) => call('openFile', p, line), openDiff: (e) => call('openDiff', e) })),
    elicitation: () => undefined,
    openElicitationUrl: () => undefined,
    approval: () => undefined,
  };
  const posted: HostMessage[] = [];
  const channel = new SessionViewChannel((m) => void posted.push(m), surface, handlers, quiet);
  return { channel, calls, posted };
}

describe('the view\'s handlers by domain', () => {
  it('send each message to its domain\'s port, aimed at the shown session when it names none', async () => {
    const { channel, calls } = wired();
    await channel.receive({ type: 'prompt', id: 'w1', text: 'hi', mentions: [{ kind: 'file', path: 'a.ts' }] });
    await channel.receive({ type: 'redo', id: 'w2', sessionId: 's1', entryId: 'u1', how: 'edit', text: 'again' });
    await channel.receive({ type: 'stop', id: 'w3' });
    await channel.receive({ type: 'resume', id: 'w4', sessionId: 's1' });
    await channel.receive({ type: 'showTaskOutput', id: 'w5', taskId: 't1' });
    await channel.receive({ type: 'killTask', id: 'w6', taskId: 't1' });
    await channel.receive({ type: 'openSession', id: 'w7' });
    await channel.receive({ type: 'restoreCheckpoint', id: 'w8', turnId: 'turn-1', path: 'a.ts' });
    await channel.receive({ type: 'openTurnChanges', id: 'w9', sessionId: 's1', turnId: 'turn-1' });
    await channel.receive({ type: 'agentOption', id: 'w10', configId: 'mode' });
    await channel.receive({ type: 'noticeAction', id: 'w11', action: 'signIn' });
    await channel.receive({ type: 'openFile', id: 'w12', path: 'src/a.ts', line: 3 });
    await channel.receive({ type: 'openDiff', id: 'w13', editId: 'e-1' });
    assert.deepEqual(calls, [
      ['prompt', { sessionId: 'shown', text: 'hi', mentions: [{ kind: 'file', path: 'a.ts' }] }],
      ['redo', { sessionId: 's1', entryId: 'u1', how: 'edit', text: 'again' }],
      ['stop', 'shown'],
      ['resume', 's1'],
      ['show', 't1'],
      ['kill', 't1'],
      ['openOrPick', undefined],
      ['vigil.restoreCheckpoint', { sessionId: 'shown', turnId: 'turn-1', path: 'a.ts' }],
      ['vigil.reviewTurnChanges', { sessionId: 's1', turnId: 'turn-1', path: undefined }],
      ['vigil.agentOptions', { sessionId: 'shown', configId: 'mode' }],
      ['remedy', 'signIn', 'shown'],
      ['openFile', 'src/a.ts', 3],
      ['openDiff', 'e-1'],
    ]);
  });

  it('answer `@`, a drop and the Problems button under the request id, for the session meant', async () => {
    const { channel, posted } = wired(tabSurface('tab', emptySnapshot));
    await channel.receive({ type: 'mentionQuery', id: 'w1', query: 'a' });
    await channel.receive({ type: 'dropUris', id: 'w2', uris: ['file:///ws/a.ts'] });
    await channel.receive({ type: 'activeProblems', id: 'w3', sessionId: 'tab' });
    assert.deepEqual(posted, [
      { type: 'mentions', requestId: 'w1', items: [{ kind: 'file', path: 'tab.ts' }] },
      { type: 'addMentions', requestId: 'w2', items: [{ kind: 'file', path: 'tab.ts' }] },
      { type: 'addMentions', requestId: 'w3', items: [{ kind: 'file', path: 'tab.ts' }] },
    ]);
  });

  it('a tab\'s Open… is the side bar\'s business: it is not aimed at the tab\'s session', async () => {
    const { channel, calls } = wired(tabSurface('tab', emptySnapshot));
    await channel.receive({ type: 'openSession', id: 'w1', sessionId: 'other' });
    await channel.receive({ type: 'showTaskOutput', id: 'w2', taskId: 't9' });
    assert.deepEqual(calls, [['openOrPick', 'other'], ['show', 't9']]);
  });
});
