// The agent handle provider resolves a session's folder before it makes the handle: concurrent
// requests share one handle, and a refused folder makes no handle (so no agent process) at all.

import * as assert from 'node:assert/strict';
import { AcpAgentHandleProvider } from '../../../src/extension/core/acp/acpHandleProvider';
import { VigilError } from '../../../src/extension/core/common/errors';
import { silentLogger } from '../../../src/extension/core/ports/logger';

function provider(cwdFor: (sessionId: string) => string | Promise<string>, launches: string[] = []): AcpAgentHandleProvider {
  return new AcpAgentHandleProvider({
    log: silentLogger,
    cwdFor,
    launchFor: async (sessionId) => {
      launches.push(sessionId);
      throw new Error('no launches in this test');
    },
    policy: { isTrusted: () => true, mode: () => 'allowAll' },
    prompter: { ask: async () => 'reject' },
  });
}

describe('agent handle provider: the session folder', () => {
  it('concurrent gets while the folder is being resolved share one handle with that cwd', async () => {
    let release!: (cwd: string) => void;
    let asked = 0;
    const agents = provider(() => {
      asked += 1;
      return new Promise<string>((resolve) => (release = resolve));
    });
    const gets = [agents.get('s1'), agents.get('s1'), agents.get('s1')];
    release('/work/alpha');
    const handles = await Promise.all(gets);
    assert.equal(asked, 1, 'the folder is resolved once');
    assert.ok(handles.every((h) => h === handles[0]));
    assert.strictEqual(await agents.get('s1'), handles[0]);
    agents.dispose();
  });

  it('a refused folder gives no handle, and the next get asks again', async () => {
    let refuse = true;
    const launches: string[] = [];
    const agents = provider(() => {
      if (refuse) throw new VigilError('OUTSIDE_WORKSPACE', 'This session belongs to the folder "beta"');
      return '/work/beta';
    }, launches);
    await assert.rejects(agents.get('s1'), /belongs to the folder "beta"/);
    assert.deepEqual(launches, [], 'nothing was launched');
    refuse = false;
    assert.ok(await agents.get('s1'));
    agents.dispose();
  });
});
