// The folder's instruction files reach the built-in agent's system prompt, and the transcript names them; a
// hostile repository's links out of the folder, FIFOs, huge and binary files are skipped or cut, never followed,
// never waited on, and the log says what was read or skipped.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { instructionsPrompt, maxFileBytes, readInstructions } from '../../../src/agent/instructions';
import { ScriptedOpenAiServer } from '../../fixtures/models/scriptedOpenAiServer';
import { AgentUnderTest } from './agentHarness';

describe('built-in agent: the folder’s instruction files', function () {
  this.timeout(30_000);
  let dir: string;
  let outside: string;
  let logged: string[];
  const originalWrite = process.stderr.write.bind(process.stderr);

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-instr-'));
    outside = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-instr-outside-'));
    logged = [];
    process.stderr.write = ((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
  });
  afterEach(async () => {
    process.stderr.write = originalWrite;
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rm(outside, { recursive: true, force: true });
  });

  it('reads AGENTS.md, CLAUDE.md and .github/copilot-instructions.md in that order', async () => {
    await fs.writeFile(path.join(dir, 'AGENTS.md'), '# Agents\nUse tabs.\n');
    await fs.writeFile(path.join(dir, 'CLAUDE.md'), 'Run npm test.');
    await fs.mkdir(path.join(dir, '.github'));
    await fs.writeFile(path.join(dir, '.github', 'copilot-instructions.md'), 'Be brief.');
    const files = await readInstructions(dir);
    assert.deepEqual(files.map((f) => [f.name, f.text, f.cut]), [['AGENTS.md', '# Agents\nUse tabs.', false], ['CLAUDE.md', 'Run npm test.', false], ['.github/copilot-instructions.md', 'Be brief.', false]]);
    assert.match(instructionsPrompt(files), /--- AGENTS.md ---\n# Agents\nUse tabs.\n--- end of AGENTS.md ---/);
    assert.match(logged.join(''), /read AGENTS\.md \(18 bytes\)/);
  });

  it('skips links out of the folder (on the file or on .github), FIFOs and binary files, saying so in the log', async function () {
    if (process.platform === 'win32') this.skip();
    await fs.writeFile(path.join(outside, 'secret.md'), 'the secret');
    await fs.symlink(path.join(outside, 'secret.md'), path.join(dir, 'AGENTS.md'));
    await fs.symlink(outside, path.join(dir, '.github'));
    await fs.writeFile(path.join(outside, 'copilot-instructions.md'), 'the other secret');
    execFileSync('mkfifo', [path.join(dir, 'CLAUDE.md')]);
    assert.deepEqual(await readInstructions(dir), [], 'the FIFO is not waited on and nothing leaks');
    const log = logged.join('');
    assert.match(log, /AGENTS\.md skipped: it is a link/);
    assert.match(log, /CLAUDE\.md skipped: it is not a regular file/);
    assert.match(log, /copilot-instructions\.md skipped: its folder is a link/);
    await fs.rm(path.join(dir, 'AGENTS.md'));
    await fs.writeFile(path.join(dir, 'AGENTS.md'), Buffer.from([0x41, 0x00, 0x42]));
    assert.deepEqual(await readInstructions(dir), []);
    assert.match(logged.join(''), /AGENTS\.md skipped: it is not text/);
  });

  it('cuts a huge file at its cap and says it was cut', async () => {
    await fs.writeFile(path.join(dir, 'AGENTS.md'), 'x'.repeat(maxFileBytes * 4));
    const [file] = await readInstructions(dir);
    assert.equal(file.text.length, maxFileBytes);
    assert.equal(file.cut, true);
    assert.match(instructionsPrompt([file]), /AGENTS\.md \(first 32768 bytes\)/);
  });

  it('the model gets them in its system prompt and the transcript names them once', async () => {
    process.stderr.write = originalWrite;
    const server = await ScriptedOpenAiServer.start();
    let agent: AgentUnderTest | undefined;
    try {
      server.reply({ kind: 'text', chunks: ['one'] }, { kind: 'text', chunks: ['two'] });
      agent = await AgentUnderTest.start({ provider: 'openai-compatible', baseUrl: server.url, model: 'scripted-model' }, { files: { 'AGENTS.md': 'Always answer in French.\n' } });
      await agent.prompt('hi');
      const system = (server.requests[0].messages as Array<{ role: string; content: string }>)[0];
      assert.equal(system.role, 'system');
      assert.match(system.content, /--- AGENTS\.md ---\nAlways answer in French\.\n--- end of AGENTS\.md ---/);
      assert.equal(agent.text(), "*Following the folder's instructions from `AGENTS.md`.*\n\none");
      await agent.prompt('again');
      assert.ok(agent.text().endsWith('onetwo'), 'named once, not at every turn');
      assert.match(agent.stderr, /instructions: read AGENTS\.md \(24 bytes\)/);
    } finally {
      await agent?.stop();
      await server.close();
    }
  });
});
