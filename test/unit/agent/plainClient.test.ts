// The built-in agent under a plain ACP client (no `_meta.vigil`, no `_vigil/*` methods): it lists and searches the
// session folder itself, confined to it (no path or symlink out), runs "background" commands in the foreground, and
// the demo reports a failed tool instead of reading its error text as a file name.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { AgentUnderTest } from './agentHarness';

type Update = Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>;

function finished(agent: AgentUnderTest): Array<{ status: string; text: string }> {
  return agent.updates
    .filter((u): u is Update => u.sessionUpdate === 'tool_call_update' && (u.status === 'completed' || u.status === 'failed'))
    .map((u) => ({ status: u.status!, text: (u.content ?? []).map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : '')).join('') }));
}

describe('built-in agent under a plain ACP client', function () {
  this.timeout(30_000);
  let agent: AgentUnderTest | undefined;
  let dir: string;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-plain-'));
  });
  afterEach(async () => {
    await agent?.stop();
    agent = undefined;
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function scripted(calls: Array<{ name: string; arguments: Record<string, unknown> }>, files: Record<string, string>): Promise<AgentUnderTest> {
    const script = path.join(dir, 'script.json');
    await fs.writeFile(script, JSON.stringify({ responses: [{ toolCalls: calls }, { text: 'done' }] }));
    return AgentUnderTest.start({ provider: 'demo', scriptPath: script }, { files, vigilMethods: null });
  }

  it('lists and searches the session folder itself, never calling _vigil methods', async () => {
    agent = await scripted(
      [
        { name: 'list_files', arguments: { path: '.' } },
        { name: 'search_text', arguments: { query: 'needle' } },
        { name: 'search_text', arguments: { query: 'needle', path: 'src/b.ts' } },
      ],
      { 'README.md': '# hi\n', 'src/a.ts': 'const x = 1;\n', 'src/b.ts': 'one\nthe needle is here\n', 'node_modules/dep/index.js': 'needle in a dependency\n' },
    );
    assert.equal((await agent.prompt('look')).stopReason, 'end_turn');
    const [list, search, searchFile] = finished(agent);
    assert.equal(list.status, 'completed', list.text);
    assert.equal(list.text, 'node_modules/\nREADME.md\nsrc/\nsrc/a.ts\nsrc/b.ts', 'sorted per folder (as the host does); node_modules listed, not entered');
    assert.equal(search.text, 'src/b.ts:2: the needle is here');
    assert.equal(searchFile.text, 'src/b.ts:2: the needle is here');
    assert.deepEqual(agent.requests, [], 'no request to the client: no _vigil/fs/* and no fs/read_text_file');
  });

  it('stays inside the session folder: paths and symlinks that lead out are refused or not followed', async () => {
    const outside = path.join(dir, 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'secret.txt'), 'needle outside\n');
    agent = await scripted(
      [
        { name: 'list_files', arguments: { path: '..' } },
        { name: 'list_files', arguments: { path: 'link' } },
        { name: 'list_files', arguments: { path: '.' } },
        { name: 'search_text', arguments: { query: 'needle' } },
        { name: 'search_text', arguments: { query: 'needle', path: 'filelink' } },
      ],
      { 'inside.txt': 'needle inside\n' },
    );
    await fs.symlink(outside, path.join(agent.workspace, 'link'));
    await fs.symlink(path.join(outside, 'secret.txt'), path.join(agent.workspace, 'filelink'));
    assert.equal((await agent.prompt('escape')).stopReason, 'end_turn');
    const [parent, link, list, search, fileLink] = finished(agent);
    assert.equal(parent.status, 'failed');
    assert.match(parent.text, /outside the session folder/);
    assert.equal(link.status, 'failed');
    assert.match(link.text, /outside the session folder .*\(it leads to .*outside\)/);
    assert.equal(list.text, 'filelink\ninside.txt\nlink', 'symlinks are listed, never entered');
    assert.equal(search.text, 'inside.txt:1: needle inside');
    assert.equal(fileLink.status, 'failed');
    assert.match(fileLink.text, /outside the session folder/);
  });

  it('a background command runs in the foreground (nobody would wake the agent), and the model is told', async () => {
    agent = await scripted([{ name: 'run_command', arguments: { command: 'echo hi', background: true } }], {});
    await agent.prompt('run');
    assert.deepEqual(agent.requests, ['permission run_command echo hi', 'terminal echo hi ']);
    const [run] = finished(agent);
    assert.match(run.text, /^\(This ACP client has no background tasks, so the command ran in the foreground\.\)/);
  });

  it('the demo reports a failed listing and never reads the error text as a file', async () => {
    agent = await AgentUnderTest.start({ provider: 'demo', demoBuildSeconds: 0 }, { vigilMethods: null });
    await fs.rm(agent.workspace, { recursive: true, force: true });
    await agent.prompt('hello');
    assert.deepEqual(agent.requests, [], 'no read_file of "Error: …", no build');
    assert.match(agent.text(), /The list_files tool failed: Cannot list: the session folder .* is not readable \(ENOENT/);
  });

  it('with Vigil’s client it still lists through the host', async () => {
    agent = await AgentUnderTest.start({ provider: 'demo', demoBuildSeconds: 0 }, { files: { 'README.md': '# hi\n' } });
    agent.permission = 'reject';
    await agent.prompt('hello');
    assert.deepEqual(agent.requests.slice(0, 2), ['list .', 'read README.md']);
  });
});
