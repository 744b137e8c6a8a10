// The built-in agent driven by `acpx`, a real plain ACP client (no `_vigil` extensions): `acpx --agent '<cmd>' exec
// "<prompt>"` runs one stateless prompt; with `--format json` it prints every JSON-RPC message of the run. The demo
// must list the workspace (by itself), read a real file through `fs/read_text_file`, and never call `_vigil/*`.
// acpx comes from the pinned test install (`.vscode-test/agents`, scripts/installAgents.mjs); like the other real
// agents, a missing one is a failure that says what to do, never a skip.

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { agentsDir } from '../../harness/realAgents';
import { ensureAgentBundle } from './agentBundle';

const acpx = path.join(agentsDir, 'node_modules', '.bin', 'acpx');

/** acpx splits `--agent` like a shell: single quotes keep each part whole. */
const quote = (part: string) => {
  if (part.includes("'")) throw new Error(`cannot quote ${part} for acpx --agent`);
  return `'${part}'`;
};

interface RpcLine {
  id?: unknown;
  method?: string;
  params?: { update?: { sessionUpdate?: string; status?: string; title?: string; content?: Array<{ content?: { text?: string } }> }; path?: string };
  result?: unknown;
}

describe('built-in agent driven by the acpx CLI (a plain ACP client)', function () {
  this.timeout(90_000);
  let dir: string | undefined;

  afterEach(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('lists the workspace and reads a file from the listing', async () => {
    if (!existsSync(acpx)) throw new Error(`acpx is not installed in ${agentsDir}: run node scripts/installAgents.mjs`);
    const bundle = await ensureAgentBundle();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-acpx-'));
    const workspace = path.join(dir, 'ws');
    const home = path.join(dir, 'home');
    await fs.mkdir(path.join(workspace, 'src'), { recursive: true });
    await fs.mkdir(home);
    await fs.writeFile(path.join(workspace, 'README.md'), '# Listed by acpx\n');
    await fs.writeFile(path.join(workspace, 'src', 'main.ts'), 'export {};\n');
    const args = ['--approve-all', '--format', 'json', '--cwd', workspace, '--agent', `${quote(process.execPath)} ${quote(bundle)}`, 'exec', 'list the files'];
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(acpx, args, {
        cwd: workspace,
        // Its own HOME: acpx keeps config and session state there.
        env: { ...process.env, HOME: home, VIGIL_AGENT_CONFIG: JSON.stringify({ provider: 'demo', demoBuildSeconds: 0 }) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.once('error', reject);
      child.once('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
    });
    assert.equal(code, 0, `acpx failed: ${stderr}\n${stdout.slice(-2_000)}`);
    const lines = stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as RpcLine);
    const methods = lines.map((l) => l.method).filter((m): m is string => m !== undefined);
    assert.deepEqual(methods.filter((m) => m.startsWith('_vigil/')), [], 'no Vigil extension is called on a client that did not advertise it');
    const updates = lines.map((l) => l.params?.update).filter((u) => u !== undefined);
    const listing = updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed' && u.content?.[0]?.content?.text?.includes('README.md'));
    assert.equal(listing?.content?.[0]?.content?.text, 'README.md\nsrc/\nsrc/main.ts');
    const reads = lines.filter((l) => l.method === 'fs/read_text_file').map((l) => l.params?.path);
    assert.deepEqual(reads, [path.join(workspace, 'README.md')], 'the demo reads the real README, not an error message');
    assert.ok(!stdout.includes('Error: list_files failed'), 'no failed listing');
  });
});
