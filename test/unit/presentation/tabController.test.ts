// An editor tab's controller: every intent goes to the tab's own session, an intent naming another session
// is refused, and the snapshot is the tab's session's model whoever built it.

import * as assert from 'node:assert/strict';
import { tabController } from '../../../src/extension/presentation/tabController';
import type { SessionViewController } from '../../../src/extension/presentation/sessionViewController';
import { emptySnapshot } from '../../../src/shared/sessionView';

function inner() {
  const calls: [string, unknown][] = [];
  const record = (name: string) => async (intent: unknown) => void calls.push([name, intent]);
  const controller: SessionViewController = {
    getSnapshot: () => { throw new Error('the side bar\'s snapshot is never a tab\'s'); },
    onPrompt: record('prompt'), onStop: record('stop'), onResume: record('resume'), onApproval: record('approval'),
    onShowTaskOutput: record('showTaskOutput'), onKillTask: record('killTask'), onOpenSession: record('openSession'), onOpenFile: record('openFile'),
    onOpenElicitationUrl: record('openElicitationUrl'), onRedo: record('redo'),
    onDropUris: async (intent) => { calls.push(['dropUris', intent]); return { items: [] }; },
  };
  return { controller, calls };
}

describe('an editor tab\'s controller', () => {
  it('aims every intent at the tab\'s session, with or without the view naming it', async () => {
    const { controller, calls } = inner();
    const tab = tabController(controller, 's1', () => emptySnapshot());
    await tab.onPrompt({ text: 'hi' });
    await tab.onStop({ sessionId: 's1' });
    await tab.onApproval({ requestId: 'r1', decision: 'allowOnce' });
    await tab.onDropUris!({ uris: ['file:///ws/a'] });
    await tab.onOpenElicitationUrl!({ requestId: 'e1' });
    await tab.onRedo!({ entryId: 'user-1', how: 'retry' });
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
    const { controller, calls } = inner();
    const tab = tabController(controller, 's1', () => emptySnapshot());
    assert.throws(() => tab.onPrompt({ sessionId: 's2', text: 'hi' }), /This tab shows another session/);
    assert.throws(() => tab.onStop({ sessionId: 's2' }), /another session/);
    assert.throws(() => tab.onRedo!({ sessionId: 's2', entryId: 'user-1', how: 'edit', text: 'x' }), /another session/);
    assert.deepEqual(calls, []);
  });

  it('answers `ready` with the tab\'s own session\'s model, and offers only what the side bar offers', () => {
    const { controller } = inner();
    const snapshot = { ...emptySnapshot(), session: { id: 's1', title: 'Tab', createdAt: 1 } };
    const tab = tabController(controller, 's1', () => snapshot);
    assert.equal(tab.getSnapshot(), snapshot);
    assert.equal(tab.onOpenDiff, undefined, 'what the side bar cannot do, the tab cannot either');
    assert.equal(tab.onActiveProblems, undefined);
  });
});
