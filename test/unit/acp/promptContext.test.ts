// Prompt context on the host: mentions checked against the workspace, content blocks built as far as
// the agent's prompt capabilities allow, and what a real agent process receives through the supervisor.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { resolveMentions } from '../../../src/extension/core/acp/mentionResolver';
import { promptBlocks, refusalFor } from '../../../src/extension/core/acp/promptContent';
import { contextLimits, maxImageBase64Chars, type PromptAttachment } from '../../../src/shared/promptContext';
import { AcpHarness } from './acpHarness';

const contextAgent = path.resolve(__dirname, '../../fixtures/agents/fakeContextAgent.js');

async function readLog(file: string): Promise<Array<Record<string, unknown>>> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('prompt context: mentions checked by the host', () => {
  let root: string;
  let ws: string;

  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-mentions-'));
    ws = path.join(root, 'ws');
    await fs.mkdir(path.join(ws, 'src'), { recursive: true });
    await fs.writeFile(path.join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
    await fs.writeFile(path.join(root, 'secret.txt'), 'outside');
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('a file inside the workspace becomes a link with its URI, name, size and type', async () => {
    const [a] = await resolveMentions(ws, [{ kind: 'file', path: 'src/a.ts' }]);
    assert.deepEqual(a, { kind: 'file', uri: pathToFileURL(path.join(ws, 'src', 'a.ts')).href, name: 'a.ts', mimeType: 'text/x-typescript', size: 20 });
  });

  it('refuses paths outside the workspace, symlinks leading out, folders, FIFOs and missing files, each saying why', async () => {
    await fs.symlink(path.join(root, 'secret.txt'), path.join(ws, 'link.txt'));
    execFileSync('mkfifo', [path.join(ws, 'pipe')]);
    await assert.rejects(resolveMentions(ws, [{ kind: 'file', path: '../secret.txt' }]), /outside|only files inside/);
    await assert.rejects(resolveMentions(ws, [{ kind: 'file', path: path.join(root, 'secret.txt') }]), /only files inside/);
    await assert.rejects(resolveMentions(ws, [{ kind: 'file', path: 'link.txt' }]), /only files inside/);
    await assert.rejects(resolveMentions(ws, [{ kind: 'file', path: 'src' }]), /not a regular file/);
    await assert.rejects(resolveMentions(ws, [{ kind: 'file', path: 'pipe' }]), /fifo, not a regular file/);
    await assert.rejects(resolveMentions(ws, [{ kind: 'file', path: 'nope.ts' }]), /no such file/);
  });

  it('bounds the number of attachments, images, image size and embedded text', async () => {
    const many = Array.from({ length: contextLimits.attachments + 1 }, () => ({ kind: 'file' as const, path: 'src/a.ts' }));
    await assert.rejects(resolveMentions(ws, many), /at most 10 attachments/);
    const big = 'A'.repeat(maxImageBase64Chars + 4);
    await assert.rejects(resolveMentions(ws, [{ kind: 'image', name: 'huge.png', mimeType: 'image/png', data: big }]), /huge\.png.*at most 5\.0 MB/);
    const text = 'x'.repeat(contextLimits.embeddedChars + 1);
    await assert.rejects(resolveMentions(ws, [{ kind: 'selection', path: 'src/a.ts', startLine: 1, endLine: 2, text }]), /at most 100000/);
    const images = Array.from({ length: contextLimits.images + 1 }, (_, i) => ({ kind: 'image' as const, name: `i${i}.png`, mimeType: 'image/png' as const, data: 'AAAA' }));
    await assert.rejects(resolveMentions(ws, images), /at most 4 images/);
  });

  it('the same file picked twice is attached once', async () => {
    const got = await resolveMentions(ws, [{ kind: 'file', path: 'src/a.ts' }, { kind: 'file', path: './src/a.ts' }]);
    assert.equal(got.length, 1);
  });
});

describe('prompt context: content blocks as far as the agent takes them', () => {
  const file: PromptAttachment = { kind: 'file', uri: 'file:///w/a.ts', name: 'a.ts', mimeType: 'text/x-typescript', size: 3 };
  const selection: PromptAttachment = { kind: 'text', source: 'selection', uri: 'file:///w/a.ts#L1-L2', name: 'a.ts:1-2', text: 'x ``` y' };
  const image: PromptAttachment = { kind: 'image', name: 'p.png', mimeType: 'image/png', data: 'AAAA', size: 3 };

  it('files are resource links; text is embedded only where the agent takes embedded context', () => {
    assert.deepEqual(promptBlocks('hi', [file, selection], { embeddedContext: true }), [
      { type: 'text', text: 'hi' },
      { type: 'resource_link', uri: 'file:///w/a.ts', name: 'a.ts', size: 3, mimeType: 'text/x-typescript' },
      { type: 'resource', resource: { uri: 'file:///w/a.ts#L1-L2', mimeType: 'text/plain', text: 'x ``` y' } },
    ]);
    const plain = promptBlocks('hi', [selection], {});
    assert.equal(plain[1].type, 'text');
    // The fence is longer than any backtick run in the text, so the selection cannot close it.
    assert.match((plain[1] as { text: string }).text, /^Selected text from a\.ts:1-2 \(file:\/\/\/w\/a\.ts#L1-L2\):\n````\nx ``` y\n````$/);
  });

  it('images go only to an agent that takes images; otherwise the refusal says what to do', () => {
    assert.deepEqual(promptBlocks('', [image], { image: true }), [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }]);
    assert.throws(() => promptBlocks('look', [image], {}), /does not take images/);
    assert.match(refusalFor([image], { image: false }, 'Gemini') ?? '', /^Gemini does not take images.*Remove "p\.png"/);
    assert.equal(refusalFor([file, selection], undefined), undefined);
  });
});

describe('prompt context: what an agent process receives through the supervisor', function () {
  this.timeout(30_000);
  let h: AcpHarness | undefined;
  let log: string;

  afterEach(async () => {
    await h?.dispose();
    h = undefined;
    await fs.rm(log, { force: true });
  });

  const start = async (...flags: string[]) => {
    log = path.join(os.tmpdir(), `vigil-context-${process.pid}-${Date.now()}.jsonl`);
    h = await AcpHarness.create({ launch: () => customLaunch({ command: process.execPath, args: [contextAgent, ...flags], env: { FAKE_CONTEXT_LOG: log } }) });
    return h;
  };

  it('a prompt with a file, a selection and an image reaches the agent as resource_link, resource and image blocks; the transcript keeps names only', async () => {
    const harness = await start();
    const [fileAttachment] = await resolveMentions(harness.workspace, [{ kind: 'file', path: 'README.md' }]);
    const attachments: PromptAttachment[] = [
      fileAttachment,
      { kind: 'text', source: 'selection', uri: 'file:///w/README.md#L1-L1', name: 'README.md:1', text: '# Demo project' },
      { kind: 'image', name: 'shot.png', mimeType: 'image/png', data: 'iVBORw0KGgo=', size: 8 },
    ];
    const r = await harness.sup.startTurn('session-1', 'explain these', { source: 'user', attachments });
    assert.equal(r.kind, 'started');
    if (r.kind !== 'started') return;
    assert.equal((await r.ended).reason, 'completed');
    const prompts = (await readLog(log)).filter((e) => e.kind === 'prompt');
    assert.deepEqual(prompts[0].blocks, [
      { type: 'text', text: 'explain these' },
      { type: 'resource_link', uri: pathToFileURL(path.join(harness.workspace, 'README.md')).href, name: 'README.md', size: 41, mimeType: 'text/markdown' },
      { type: 'resource', resource: { uri: 'file:///w/README.md#L1-L1', mimeType: 'text/plain', text: '# Demo project' } },
      { type: 'image', mimeType: 'image/png', data: '<12 base64 chars>' },
    ]);
    const { records } = await harness.sup.sessions.readTail('session-1', 100);
    const prompt = records.find((x) => x.type === 'userPrompt');
    assert.deepEqual(prompt && 'attachments' in prompt ? prompt.attachments : undefined, [
      { kind: 'file', name: 'README.md', uri: pathToFileURL(path.join(harness.workspace, 'README.md')).href, size: 41 },
      { kind: 'selection', name: 'README.md:1', uri: 'file:///w/README.md#L1-L1', size: 14 },
      { kind: 'image', name: 'shot.png', size: 8 },
    ]);
    assert.ok(!JSON.stringify(records).includes('iVBORw0KGgo='), 'no image bytes in the transcript');
  });

  it('an agent without embedded context gets the selection as text; one without images refuses the prompt before sending it', async () => {
    const harness = await start('--no-images', '--no-embedded');
    const text: PromptAttachment = { kind: 'text', source: 'problems', uri: 'vigil:problems', name: 'Problems (1)', text: 'a.ts:1:1 error: bad' };
    const ok = await harness.sup.startTurn('session-1', 'fix', { source: 'user', attachments: [text] });
    assert.equal(ok.kind === 'started' && (await ok.ended).reason, 'completed');
    const image: PromptAttachment = { kind: 'image', name: 'shot.png', mimeType: 'image/png', data: 'AAAA', size: 3 };
    const refused = await harness.sup.startTurn('session-1', 'look', { source: 'user', attachments: [image] });
    const ended = refused.kind === 'started' ? await refused.ended : undefined;
    assert.equal(ended?.reason, 'failed');
    assert.match(ended?.message ?? '', /does not take images/);
    const prompts = (await readLog(log)).filter((e) => e.kind === 'prompt');
    assert.equal(prompts.length, 1, 'the refused prompt never reached the agent');
    assert.deepEqual((prompts[0].blocks as unknown[])[1], { type: 'text', text: 'The Problems list (vigil:problems):\n```\na.ts:1:1 error: bad\n```' });
  });
});
