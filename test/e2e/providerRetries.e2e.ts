// The built-in agent against a local OpenAI-compatible endpoint that answers one HTTP 429 with Retry-After
// before the real answer: the view shows the retry in the transcript, the turn completes, and the session's
// wakeups are not paused (a rate limit is not a quota failure).

import * as assert from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { scriptedModelSessionForSuite } from '../harness/scriptedModelSession';
import { vigilStorage } from '../harness/runFiles';
import { uiTimeout } from '../harness/sessionView';
import { waitSessionRow } from '../harness/sideBar';
import { httpError, text } from '../fakes/modelEndpoints/script';

describe('model retries (real workbench)', function () {
  const scripted = scriptedModelSessionForSuite('retries');

  it('a scripted 429 then success shows the retry and no pause', async () => {
    const { session, endpoint, view } = scripted.current;
    endpoint.script(httpError(429, 'Rate limit reached for requests', { 'retry-after': '2' }), text('Answered after the rate limit.'));
    const sessionId = await view.sessionId();
    await view.send('Hello despite the rate limit.');
    const notice = view.locator('.entry.notice', { hasText: 'Retrying in 2 s (1/5) after HTTP 429.' });
    await notice.waitFor({ timeout: uiTimeout });
    await view.locator('.entry.agent', { hasText: 'Answered after the rate limit.' }).waitFor({ timeout: uiTimeout });
    await view.waitPhase('idle');
    assert.strictEqual(await view.count('.entry.notice'), 1, 'one notice: the retry; no failure');
    assert.strictEqual(endpoint.mainRequests().length, 2, 'the request was sent again once');
    const meta = JSON.parse(readFileSync(path.join(vigilStorage(session.server), 'sessions', sessionId, 'session.json'), 'utf8')) as { wakeupsPaused?: string };
    assert.strictEqual(meta.wakeupsPaused, undefined, 'a rate limit does not pause the session’s wakeups');
    // The agent names the session as its turn ends: the list shows that name before the picture is taken.
    await waitSessionRow(session.workbench.page, /^Scripted session/);
    await session.workbench.screenshot('e2e-provider-retry');
    session.workbench.assertStayedOnMachine();
  });
});
