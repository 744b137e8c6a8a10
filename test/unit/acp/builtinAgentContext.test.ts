// The built-in agent receiving prompt context over ACP with a real OpenAI-compatible server: a
// resource_link becomes a path the model can read, an embedded resource fenced text, and an image an
// image part of the user message (the provider takes images, so the agent advertises them).

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AcpAgentHandle } from '../../../src/extension/core/acp/acpAgentHandle';
import { builtinLaunch } from '../../../src/extension/core/acp/agentLaunch';
import type { PromptAttachment } from '../../../src/shared/promptContext';
import { ScriptedOpenAiServer } from '../../fixtures/models/scriptedOpenAiServer';
import { ensureAgentBundle } from '../agent/agentBundle';
import { AcpHarness } from './acpHarness';

describe('built-in agent: attached files, text and images', function () {
  this.timeout(40_000);
  let h: AcpHarness | undefined;
  let server: ScriptedOpenAiServer;

  beforeEach(async () => {
    server = await ScriptedOpenAiServer.start();
  });
  afterEach(async () => {
    await h?.dispose();
    await server.close();
  });

  it('passes each block to the model the way it can use it', async () => {
    const bundle = await ensureAgentBundle();
    h = await AcpHarness.create({
      launch: () => builtinLaunch({ agentScript: bundle, execPath: process.execPath, model: { provider: 'openai-compatible', baseUrl: server.url, name: 'm' }, apiKey: 'k' }),
    });
    const readme = pathToFileURL(path.join(h.workspace, 'README.md')).href;
    const attachments: PromptAttachment[] = [
      { kind: 'file', uri: readme, name: 'README.md', mimeType: 'text/markdown', size: 41 },
      { kind: 'text', source: 'selection', uri: `${readme}#L2-L2`, name: 'README.md:2', text: 'Hello from the workspace.' },
      { kind: 'image', name: 'shot.png', mimeType: 'image/png', data: 'iVBORw0KGgo=', size: 8 },
    ];
    const caps = await ((await h.agents.get('session-1')) as AcpAgentHandle).promptCapabilities();
    assert.deepEqual(caps, { image: true, audio: false, embeddedContext: true });
    server.reply({ kind: 'text', chunks: ['Seen.'] });
    const r = await h.sup.startTurn('session-1', 'What is this?', { source: 'user', attachments });
    assert.equal(r.kind === 'started' && (await r.ended).reason, 'completed');
    const user = (server.requests[0].messages as Array<{ role: string; content: unknown }>).find((m) => m.role === 'user');
    const content = user?.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    assert.equal(content[0].type, 'text');
    assert.equal(
      content[0].text,
      'What is this?\n[Attached file: README.md (41 bytes). Read it with read_file when you need its content.]\n[Attached README.md lines 2-2]\n```\nHello from the workspace.\n```',
    );
    assert.deepEqual(content[1], { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } });

    // A fresh agent process continues from the history, which names what was attached (not its bytes).
    await ((await h.agents.get('session-1')) as AcpAgentHandle).kill('test: a restart');
    server.reply({ kind: 'text', chunks: ['Yes.'] });
    assert.equal((await h.turn('Still there?')).reason, 'completed');
    const history = (server.requests[1].messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'user').map((m) => m.content);
    assert.deepEqual(history, ['What is this?\n[attached: README.md, README.md:2, shot.png]', 'Still there?']);
  });

  it('the demo provider does not take images: the agent says so and the host refuses an image before sending', async () => {
    const bundle = await ensureAgentBundle();
    h = await AcpHarness.create({ launch: () => builtinLaunch({ agentScript: bundle, execPath: process.execPath, model: { provider: 'demo' } }) });
    const r = await h.sup.startTurn('session-1', 'look', { source: 'user', attachments: [{ kind: 'image', name: 'shot.png', mimeType: 'image/png', data: 'AAAA', size: 3 }] });
    const ended = r.kind === 'started' ? await r.ended : undefined;
    assert.equal(ended?.reason, 'failed');
    assert.match(ended?.message ?? '', /does not take images/);
  });
});
