// Tool execution against a fake client: argument validation, edit semantics, permission, background commands.

import * as assert from 'node:assert/strict';
import { runTool } from '../../../src/agent/tools/runTool';
import type { ClientPort, ToolContext } from '../../../src/agent/tools/toolContext';

function context(files: Record<string, string>, answer: 'allow_once' | 'allow_always' | 'reject_once' = 'allow_once') {
  const log: string[] = [];
  const client: ClientPort = {
    readTextFile: async (p, _signal, range) => {
      if (!(p in files)) throw new Error(`Cannot read ${p}: no such file or folder`);
      if (range?.line || range?.limit) log.push(`read ${p} line ${range.line ?? '-'} limit ${range.limit ?? '-'}`);
      return files[p];
    },
    writeTextFile: async (p, c) => {
      log.push(`write ${p}`);
      files[p] = c;
    },
    createTerminal: async (req) => {
      log.push(`terminal ${req.command}${req.background ? ' background' : ''}`);
      return { id: 't-9', waitForExit: async () => ({ exitCode: 0 }), currentOutput: async () => ({ output: 'ok\n', truncated: false }), kill: async () => undefined, release: async () => log.push('release') };
    },
    requestPermission: async () => {
      log.push('permission');
      return { outcome: 'selected', optionId: answer };
    },
    hostRequest: async () => ({ entries: [], truncated: false }) as never,
  };
  const ctx: ToolContext = { sessionId: 's', cwd: '/ws', client, signal: new AbortController().signal, commandTimeoutMs: 5_000, allowedAlways: new Set(), hostServes: () => true, publishPlan: async () => undefined };
  return { ctx, log, files };
}
const call = { toolCallId: 'c1', title: 't' };

describe('built-in agent tools', () => {
  it('edit_file replaces exactly one occurrence', async () => {
    const { ctx, files } = context({ '/ws/a.txt': 'one two three' });
    const r = await runTool(ctx, 'edit_file', JSON.stringify({ path: 'a.txt', old_text: 'two', new_text: '2' }), call);
    assert.equal(r.ok, true);
    assert.equal(files['/ws/a.txt'], 'one 2 three');
  });

  it('edit_file: old text not found is a clear error and writes nothing', async () => {
    const { ctx, log } = context({ '/ws/a.txt': 'one two three' });
    const r = await runTool(ctx, 'edit_file', JSON.stringify({ path: 'a.txt', old_text: 'four', new_text: '4' }), call);
    assert.equal(r.ok, false);
    assert.match(r.text, /old text not found in a\.txt/);
    assert.ok(!log.some((l) => l.startsWith('write')));
  });

  it('edit_file: ambiguous old text is refused', async () => {
    const { ctx } = context({ '/ws/a.txt': 'x x' });
    const r = await runTool(ctx, 'edit_file', JSON.stringify({ path: 'a.txt', old_text: 'x', new_text: 'y' }), call);
    assert.match(r.text, /more than once/);
  });

  it('read_file passes a line range through, so a big file can be read by parts', async () => {
    const { ctx, log } = context({ '/ws/big.log': 'x' });
    assert.equal((await runTool(ctx, 'read_file', JSON.stringify({ path: 'big.log', line: 100, limit: 20 }), call)).ok, true);
    assert.deepEqual(log, ['read /ws/big.log line 100 limit 20']);
    assert.match((await runTool(ctx, 'read_file', JSON.stringify({ path: 'big.log', line: 0 }), call)).text, /Invalid arguments for read_file: line:/);
  });

  it('schema errors name the field', async () => {
    const { ctx } = context({});
    const r = await runTool(ctx, 'write_file', JSON.stringify({ path: 'a.txt' }), call);
    assert.match(r.text, /Invalid arguments for write_file: content:/);
  });

  it('a rejected permission runs nothing; allow always is remembered per kind', async () => {
    const rejected = context({}, 'reject_once');
    const r = await runTool(rejected.ctx, 'run_command', JSON.stringify({ command: 'rm -rf /' }), call);
    assert.match(r.text, /rejected/);
    assert.deepEqual(rejected.log, ['permission']);
    const always = context({}, 'allow_always');
    await runTool(always.ctx, 'run_command', JSON.stringify({ command: 'true' }), call);
    await runTool(always.ctx, 'run_command', JSON.stringify({ command: 'true' }), call);
    assert.equal(always.log.filter((l) => l === 'permission').length, 1);
  });

  it('a background command returns at once with its task id and is not released', async () => {
    const { ctx, log } = context({});
    const r = await runTool(ctx, 'run_command', JSON.stringify({ command: 'npm test', background: true }), call);
    assert.match(r.text, /Started background task t-9/);
    assert.deepEqual(log, ['permission', 'terminal npm test background']);
  });
});
