// vigil.mcpServers reaching agents through the ACP client: a fake agent receives them in session/new as far as its
// mcpCapabilities allow (and sees the `_vigil` extensions the client advertises); the built-in agent, hosted by the
// real client, lists files through the host and calls a real stdio MCP server's tool through the permission gate.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpServer } from '@agentclientprotocol/sdk';
import { builtinLaunch, customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { validateMcpServers } from '../../../src/extension/core/acp/mcpSettings';
import { McpSettingsSource } from '../../../src/extension/core/acp/mcpSettingsSource';
import { ensureAgentBundle } from '../agent/agentBundle';
import { AcpHarness } from './acpHarness';

const echoAgent = path.resolve(__dirname, '../../fixtures/agents/mcpEchoAgent.js');
const serverScript = path.resolve(__dirname, '../../fixtures/mcp/stdioMcpServer.js');

/** As a person would write the setting. */
const setting = [
  { name: 'files', command: process.execPath, args: [serverScript, 'files'], env: { FIXTURE_TOKEN: 'stdio-token-value' } },
  { name: 'docs', type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer http-token-value' } },
];

describe('vigil.mcpServers given to agents through the ACP client', function () {
  this.timeout(40_000);
  let h: AcpHarness | undefined;
  let dir: string | undefined;

  afterEach(async () => {
    await h?.dispose();
    h = undefined;
    if (dir) await fs.rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  const sourceFor = (harness: () => AcpHarness) => {
    const servers = validateMcpServers(setting).servers;
    return new McpSettingsSource(() => servers, {
      trace: () => undefined,
      debug: () => undefined,
      info: (m: string) => harness().logs.push({ level: 'info', message: m }),
      warn: (m: string) => harness().logs.push({ level: 'warn', message: m }),
      error: () => undefined,
    });
  };

  const received = (text: string) => JSON.parse(text.slice(text.indexOf('{'))) as { mcpServers: McpServer[]; clientMeta: { vigil?: { methods: string[]; features: string[] } } };

  it('an agent without mcpCapabilities gets the stdio server only, and the log says which it could not take', async () => {
    h = await AcpHarness.create({ launch: () => customLaunch({ command: process.execPath, args: [echoAgent] }), mcpServers: [sourceFor(() => h!)] });
    assert.equal((await h.turn('which servers?')).reason, 'completed');
    const got = received(h.agentText());
    assert.deepEqual(got.mcpServers, [{ name: 'files', command: process.execPath, args: [serverScript, 'files'], env: [{ name: 'FIXTURE_TOKEN', value: 'stdio-token-value' }] }]);
    assert.ok(h.logged('the agent does not accept "docs" (http) from vigil.mcpServers'), JSON.stringify(h.logs));
    // The client names the `_vigil` methods it serves, so the built-in agent knows what it may call.
    assert.deepEqual(got.clientMeta.vigil?.methods.slice(0, 2), ['_vigil/fs/list', '_vigil/fs/search']);
    assert.deepEqual(got.clientMeta.vigil?.features, ['terminal.background']);
  });

  it('an agent advertising mcpCapabilities.http gets the http server too, with its headers', async () => {
    h = await AcpHarness.create({ launch: () => customLaunch({ command: process.execPath, args: [echoAgent, '--http'] }), mcpServers: [sourceFor(() => h!)] });
    assert.equal((await h.turn('which servers?')).reason, 'completed');
    const got = received(h.agentText());
    assert.deepEqual(got.mcpServers.map((s) => s.name), ['files', 'docs']);
    assert.deepEqual(got.mcpServers[1], { type: 'http', name: 'docs', url: 'http://127.0.0.1:9/mcp', headers: [{ name: 'Authorization', value: 'Bearer http-token-value' }] });
  });

  it('the built-in agent lists through the host and calls the stdio server’s tool, asked through the permission gate', async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-mcp-host-'));
    const script = path.join(dir, 'script.json');
    await fs.writeFile(
      script,
      JSON.stringify({
        responses: [{ toolCalls: [{ name: 'list_files', arguments: { path: '.' } }, { name: 'mcp__files__echo', arguments: { text: 'via host' } }] }, { text: 'done' }],
      }),
    );
    const bundle = await ensureAgentBundle();
    h = await AcpHarness.create({
      launch: () => {
        const spec = builtinLaunch({ agentScript: bundle, execPath: process.execPath, model: { provider: 'demo' } });
        return { ...spec, env: { ...spec.env, VIGIL_DEMO_SCRIPT: script } };
      },
      mcpServers: [sourceFor(() => h!)],
    });
    h.answer = 'allowOnce';
    assert.equal((await h.turn('list and echo')).reason, 'completed');
    const descriptions = h.activity().map((e) => e.description);
    assert.ok(descriptions.includes('fs: list ' + h.workspace), descriptions.join('\n'));
    assert.deepEqual(h.questions.map((q) => [q.title, q.kind]), [['files: echo', 'other']]);
    const results = h.agentEvents
      .map((e) => e.update)
      .filter((u) => u?.sessionUpdate === 'tool_call_update' && (u as { status?: string }).status === 'completed')
      .map((u) => JSON.stringify((u as { content?: unknown }).content));
    assert.ok(results.some((r) => r.includes('README.md')), results.join('\n'));
    assert.ok(results.some((r) => r.includes('echo from files: via host')), results.join('\n'));
  });
});
