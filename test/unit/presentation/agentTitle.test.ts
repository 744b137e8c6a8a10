// The agent's title names a session unless the person named it; Vigil's own names give way to it.

import * as assert from 'node:assert/strict';
import { SessionStore } from '../../../src/extension/core/store/sessionStore';
import { adoptAgentTitle } from '../../../src/extension/presentation/agentTitle';
import { Redactor } from '../../../src/extension/core/common/redactor';
import { recordingLogger, tempRoot } from '../supervisor/harness';

async function store(redactor?: Redactor): Promise<SessionStore> {
  const s = new SessionStore(await tempRoot(), recordingLogger([]), Date.now, redactor);
  await s.init();
  return s;
}

describe('agent titles', () => {
  it('replaces Vigil’s own title (new or first-message) and a previous agent title', async () => {
    const s = await store();
    await s.create('New session', 'a');
    assert.equal((await adoptAgentTitle(s, 'a', 'Fix the login bug'))?.title, 'Fix the login bug');
    assert.equal((await s.get('a'))?.titleSource, 'agent');
    await s.rename('a', 'from the first message', 'auto');
    assert.equal((await adoptAgentTitle(s, 'a', 'Login bug, second try'))?.title, 'Login bug, second try');
    assert.equal(await adoptAgentTitle(s, 'a', 'Login bug, second try'), undefined, 'the same title is no change');
  });

  it('never replaces a title the person gave', async () => {
    const s = await store();
    await s.create('New session', 'a');
    await adoptAgentTitle(s, 'a', 'Agent title');
    await s.rename('a', 'My name for it');
    assert.equal(await adoptAgentTitle(s, 'a', 'Another agent title'), undefined);
    assert.equal((await s.get('a'))?.title, 'My name for it');
  });

  it('a title carrying a secret is stored redacted; a deleted session is left alone', async () => {
    const redactor = new Redactor();
    redactor.add(['sk-secret-123456']);
    const s = await store(redactor);
    await s.create('New session', 'a');
    assert.equal((await adoptAgentTitle(s, 'a', 'key sk-secret-123456 leaked'))?.title.includes('sk-secret-123456'), false);
    assert.equal(await adoptAgentTitle(s, 'gone', 'x'), undefined);
  });
});
