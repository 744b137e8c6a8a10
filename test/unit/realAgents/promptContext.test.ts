// Prompt context with real ACP agents (Claude adapter, Codex, Gemini CLI), offline against the local model
// endpoint: a file link, an embedded selection and an image sent by Vigil reach the model in each agent's own form.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { AcpAgentHandle } from '../../../src/extension/core/acp/acpAgentHandle';
import { resolveMentions } from '../../../src/extension/core/acp/mentionResolver';
import type { PromptAttachment } from '../../../src/shared/promptContext';
import { text } from '../../fakes/modelEndpoints/script';
import { realAgentBounds, type RealAgentRun, startRealAgent } from './realAgentTurn';

// A 1×1 PNG.
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('real agents receive prompt context', function () {
  this.timeout(realAgentBounds.testMs);
  let run: RealAgentRun | undefined;

  afterEach(async () => {
    await run?.dispose();
    run = undefined;
  });

  for (const name of ['claude', 'codex', 'gemini'] as const) {
    it(`${name}: a file link, a selection and (where it takes images) an image reach the model`, async () => {
      run = await startRealAgent(name);
      const { h, endpoint } = run;
      const caps = await ((await h.agents.get('session-1')) as AcpAgentHandle).promptCapabilities();
      const marker = `selected-${Math.random().toString(36).slice(2)}`;
      const [file] = await resolveMentions(h.workspace, [{ kind: 'file', path: 'README.md' }]);
      const attachments: PromptAttachment[] = [
        file,
        { kind: 'text', source: 'selection', uri: `file://${path.join(h.workspace, 'README.md')}#L1-L1`, name: 'README.md:1', text: marker },
        ...(caps?.image ? [{ kind: 'image' as const, name: 'dot.png', mimeType: 'image/png' as const, data: png, size: 70 }] : []),
      ];
      endpoint.script(text('I see what you attached.'));
      const r = await h.sup.startTurn('session-1', 'What are these?', { source: 'user', attachments });
      const ended = r.kind === 'started' ? await r.ended : undefined;
      assert.equal(ended?.reason, 'completed', `${ended?.message ?? ''}; requests: ${endpoint.describe()}`);
      const body = JSON.stringify(endpoint.mainRequests().map((q) => q.body));
      assert.ok(body.includes('What are these?'), 'the text reached the model');
      assert.ok(body.includes('README.md'), 'the file link reached the model');
      assert.ok(body.includes(marker), 'the selection reached the model');
      // Gemini CLI (0.61) advertises images, but its model request carries no image part: nothing Vigil can change.
      if (caps?.image && name !== 'gemini') assert.ok(body.includes(png), 'the image reached the model');
    });
  }
});
