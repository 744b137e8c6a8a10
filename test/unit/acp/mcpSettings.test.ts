// `vigil.mcpServers` validation (each bad entry skipped with a message naming it and the fix, the rest used) and
// the filter by the agent's mcpCapabilities (stdio always; http/sse only when advertised), with its log line.

import * as assert from 'node:assert/strict';
import type { McpServer } from '@agentclientprotocol/sdk';
import { describeMcpServer, maxMcpServers, mcpSecrets, validateMcpServers } from '../../../src/extension/core/acp/mcpSettings';
import { filterByCapabilities, McpSettingsSource } from '../../../src/extension/core/acp/mcpSettingsSource';
import { validateSettings } from '../../../src/extension/core/settings/settingsValidation';

const stdio: McpServer = { name: 'files', command: 'npx', args: ['-y', 'server-files'], env: [{ name: 'TOKEN', value: 'stdio-secret-1' }] };
const http: McpServer = { type: 'http', name: 'docs', url: 'http://127.0.0.1:3000/mcp', headers: [{ name: 'Authorization', value: 'Bearer http-secret-2' }] };
const sse: McpServer = { type: 'sse', name: 'events', url: 'https://example.test/sse', headers: [] };

describe('vigil.mcpServers validation', () => {
  it('turns stdio and http entries into ACP’s shape', () => {
    const { servers, issues } = validateMcpServers([
      { name: 'files', command: 'npx', args: ['-y', 'server-files'], env: { TOKEN: 'stdio-secret-1' } },
      { name: 'docs', type: 'http', url: 'http://127.0.0.1:3000/mcp', headers: { Authorization: 'Bearer http-secret-2' } },
      { name: 'events', type: 'sse', url: 'https://example.test/sse' },
      { name: 'plain', type: 'stdio', command: 'srv' },
    ]);
    assert.deepEqual(issues, []);
    assert.deepEqual(servers, [stdio, http, sse, { name: 'plain', command: 'srv', args: [], env: [] }]);
    assert.deepEqual(mcpSecrets(servers), ['stdio-secret-1', 'Bearer http-secret-2', 'http-secret-2']);
  });

  it('only env values and headers whose names say secret are secrets; a path, a level or an accept type is not', () => {
    const { servers } = validateMcpServers([
      { name: 'files', command: 'srv', env: { ROOT_DIR: '/home/me/project', LOG_LEVEL: 'debug-verbose', GITHUB_TOKEN: 'ghp_0123456789abcdef', MIRROR: 'https://bob:hunter2pass@mirror.test/x' } },
      { name: 'docs', type: 'http', url: 'https://docs.test/mcp?api_key=qk-0123456789', headers: { Accept: 'application/json', 'X-Org': 'my-organisation', 'X-Api-Key': 'xk-0123456789' } },
    ]);
    assert.deepEqual(mcpSecrets(servers), ['ghp_0123456789abcdef', 'bob', 'bob', 'hunter2pass', 'hunter2pass', 'xk-0123456789', 'qk-0123456789']);
  });

  it('skips each bad entry with a message naming it and the fix; the others are used', () => {
    const { servers, issues } = validateMcpServers([
      { name: 'ok', command: 'srv' },
      { name: 'nocmd' },
      { name: 'bad name!', command: 'x' },
      { name: 'web', type: 'http', url: 'ftp://x' },
      { name: 'cred', type: 'http', url: 'http://user:pw@127.0.0.1/mcp' },
      { name: 'typo', command: 'x', agrs: ['y'] },
      { name: 'env', command: 'x', env: { '1BAD': 'v' } },
      { name: 'hdr', type: 'http', url: 'http://127.0.0.1/mcp', headers: { Authorization: 'a\r\nInjected: 1' } },
      { name: 'kind', type: 'websocket', url: 'ws://x' },
      'not an object',
      { name: 'OK', command: 'dup' },
    ]);
    assert.deepEqual(servers.map((s) => s.name), ['ok']);
    const text = issues.map((i) => `${i.entry} ${i.message}`);
    assert.match(text[0], /^#2 \("nocmd"\) is skipped: needs a "command"/);
    assert.match(text[1], /^#3 \("bad name!"\) is skipped: "name" must be 1 to 40 letters/);
    assert.match(text[2], /^#4 \("web"\) is skipped: "url" must be an http:\/\/ or https:\/\//);
    assert.match(text[3], /^#5 \("cred"\) .*without a user name or password/);
    assert.match(text[4], /^#6 \("typo"\) .*unknown property "agrs"/);
    assert.match(text[5], /^#7 \("env"\) .*not a valid variable name/);
    assert.match(text[6], /^#8 \("hdr"\) .*line break/);
    assert.match(text[7], /^#9 \("kind"\) .*"type" must be "http" \(streamable HTTP\) or "sse"/);
    assert.match(text[8], /^#10 is skipped/);
    assert.match(text[9], /^#11 \("OK"\) is skipped: another server is already named "OK"/);
    assert.equal(issues.length, 10);
  });

  it('not a list: no server, and an example', () => {
    const { servers, issues } = validateMcpServers({ name: 'x', command: 'y' });
    assert.deepEqual(servers, []);
    assert.match(issues[0].message, /must be a list of servers, e\.g\./);
    assert.deepEqual(validateMcpServers(undefined), { servers: [], issues: [] });
  });

  it('a list longer than the bound is cut, and says so once', () => {
    const many = Array.from({ length: maxMcpServers + 5 }, (_, i) => ({ name: `s${i}`, command: 'x' }));
    const { servers, issues } = validateMcpServers(many);
    assert.equal(servers.length, maxMcpServers);
    assert.equal(issues.length, 1);
    assert.match(issues[0].message, /at most 32 servers/);
  });

  it('the settings validator reports all bad entries in one issue for vigil.mcpServers, keeping the good ones', () => {
    const { settings, issues } = validateSettings((key) => (key === 'mcpServers' ? [{ name: 'a', command: 'x' }, { name: 'b' }] : undefined));
    assert.deepEqual(settings.mcpServers.map((s) => s.name), ['a']);
    assert.equal(issues.length, 1);
    assert.equal(issues[0].key, 'vigil.mcpServers');
    assert.match(issues[0].message, /entry #2 \("b"\) is skipped: .* The other server is used\./);
  });

  it('describes a server without its env or header values', () => {
    assert.equal(describeMcpServer(stdio), 'files: npx -y server-files (environment: TOKEN)');
    assert.equal(describeMcpServer(http), 'docs: http http://127.0.0.1:3000/mcp (headers: Authorization)');
  });
});

describe('MCP servers filtered by the agent’s mcpCapabilities', () => {
  it('stdio always; http and sse only when advertised', () => {
    assert.deepEqual(filterByCapabilities([stdio, http, sse], undefined).accepted, [stdio]);
    assert.deepEqual(filterByCapabilities([stdio, http, sse], { mcpCapabilities: { http: true } }).accepted, [stdio, http]);
    assert.deepEqual(filterByCapabilities([stdio, http, sse], { mcpCapabilities: { http: true, sse: true } }).accepted, [stdio, http, sse]);
    assert.deepEqual(filterByCapabilities([http, sse], { mcpCapabilities: {} }).refused.map((r) => r.transport), ['http', 'sse']);
  });

  it('the source logs which servers an agent could not take, once per session and outcome', async () => {
    const lines: string[] = [];
    const logger = { trace: () => undefined, debug: () => undefined, info: (m: string) => lines.push(`info ${m}`), warn: (m: string) => lines.push(`warn ${m}`), error: () => undefined };
    const source = new McpSettingsSource(() => [stdio, http], logger);
    assert.deepEqual(await source.serversFor('s1', { mcpCapabilities: {} }), [stdio]);
    assert.deepEqual(await source.serversFor('s1', { mcpCapabilities: {} }), [stdio]);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /^warn \[mcp\] session s1: the agent does not accept "docs" \(http\) from vigil\.mcpServers: it does not advertise mcpCapabilities\.http; it gets "files"$/);
    assert.deepEqual(await source.serversFor('s1', { mcpCapabilities: { http: true } }), [stdio, http]);
    assert.match(lines[1], /^info \[mcp\] session s1: offering "files", "docs"/);
  });

  it('in Restricted Mode no server is given at all, and the log says why and what to do', async () => {
    const lines: string[] = [];
    const logger = { trace: () => undefined, debug: () => undefined, info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: () => undefined };
    let trusted = false;
    const source = new McpSettingsSource(() => [stdio, http], logger, () => trusted);
    assert.deepEqual(await source.serversFor('s1', { mcpCapabilities: { http: true } }), []);
    assert.match(lines[0], /Restricted Mode: vigil\.mcpServers are not given to the agent.*Trust the workspace to use them/);
    trusted = true;
    assert.deepEqual(await source.serversFor('s1', { mcpCapabilities: { http: true } }), [stdio, http]);
  });
});
