// A turn with the real Claude ACP agent, offline against the local model endpoint, under the real ACP client.

import { realAgentBounds, type RealAgentRun, startRealAgent, turnWithToolCall } from './realAgentTurn';

describe('real agent: claude', function () {
  this.timeout(realAgentBounds.testMs);
  let run: RealAgentRun | undefined;

  afterEach(async () => {
    await run?.dispose();
    run = undefined;
  });

  it('runs a turn in which the model calls its read tool and then answers', async () => {
    run = await startRealAgent('claude');
    await turnWithToolCall(run, 'read');
  });
});
