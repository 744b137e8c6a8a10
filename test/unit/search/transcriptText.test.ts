// The searchable text of a transcript: the person's prompts and the agent's messages, read in chunks up to a cap,
// whatever the file holds (corrupt lines, hostile bytes, megabyte lines, a torn end).

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { mayHoldMessage, readTranscriptText, type TextReadLimits } from '../../../src/extension/core/search/transcriptText';
import { tempRoot } from '../supervisor/harness';
import { chunk, prompt, toolOutput } from './records';


async function textOf(body: string | Buffer, limits: Partial<TextReadLimits> = {}, stop = () => false) {
  const file = path.join(await tempRoot(), 'transcript.jsonl');
  await fs.writeFile(file, body);
  const handle = await fs.open(file, 'r');
  try {
    return await readTranscriptText(handle, await handle.stat(), { maxBytes: 1 << 20, maxChars: 1 << 20, ...limits }, stop);
  } finally {
    await handle.close();
  }
}

describe('readTranscriptText', () => {
  it('keeps the person\'s prompts and the agent\'s messages, its chunks joined, and nothing of tools, notices or wakeups', async () => {
    const body = [
      prompt('Why does the parser fail?'),
      chunk('The par'),
      chunk('ser fails on '),
      chunk('tabs.'),
      toolOutput('secret tool output'),
      chunk('Fixed.'),
      JSON.stringify({ type: 'notice', level: 'info', text: 'a notice', at: 1 }),
      prompt('Background task 3 finished', 'wakeup'),
      prompt('Thanks'),
    ].join('\n');
    const read = await textOf(`${body}\n`);
    assert.deepEqual(read?.text.split('\u0000'), ['Why does the parser fail?', 'The parser fails on tabs.', 'Fixed.', 'Thanks']);
    assert.equal(read?.cut, false);
  });

  it('reads the same text whatever the chunk size, lines crossing chunks included', async () => {
    const body = `${[prompt('héllo wörld ✓ 𝄞'), chunk('one '), chunk('two'), toolOutput('x'.repeat(5_000)), prompt('last')].join('\n')}\n`;
    const whole = await textOf(body);
    for (const chunkBytes of [1, 7, 64, 4096]) assert.deepEqual((await textOf(body, { chunkBytes }))?.text, whole?.text, `chunks of ${chunkBytes}`);
    assert.equal(whole?.text, 'héllo wörld ✓ 𝄞\u0000one two\u0000last');
  });

  it('survives corrupt lines, hostile bytes and a torn last line, and folds line breaks and invisible characters to spaces', async () => {
    const hostile = Buffer.concat([
      Buffer.from(`${prompt('before')}\n{not json\n\u0000\u0001garbage\n`),
      Buffer.from([0xff, 0xfe, 0x0a]),
      Buffer.from(`${prompt('a\nb\u202eevil\u200bc\u0000d')}\n${JSON.stringify({ type: 'userPrompt', text: 42, source: 'user' })}\n`),
      Buffer.from(`${chunk('after')}\n${prompt('torn, never ended').slice(0, 30)}`),
    ]);
    const read = await textOf(hostile);
    assert.equal(read?.text, 'before\u0000a b evil c d\u0000after');
  });

  it('scans past a line longer than the line bound without keeping it, and reads on', async () => {
    const body = `${prompt('first')}\n${prompt('y'.repeat(10_000))}\n${chunk('z'.repeat(10_000))}\n${prompt('third')}\n`;
    const read = await textOf(body, { maxLineBytes: 1_000, chunkBytes: 256 });
    assert.equal(read?.text, 'first\u0000third');
  });

  it('reads at most maxBytes from the start, and at most maxChars of text, and says it was cut', async () => {
    const body = `${prompt('early words')}\n${toolOutput('o'.repeat(2_000))}\n${prompt('late words')}\n`;
    const capped = await textOf(body, { maxBytes: 500 });
    assert.deepEqual([capped?.text, capped?.cut], ['early words', true]);
    const short = await textOf(body, { maxChars: 5 });
    assert.deepEqual([short?.text, short?.cut], ['early', true]);
  });

  it('returns nothing when told to stop between chunks: a text read in part is never taken for the whole', async () => {
    let reads = 0;
    const read = await textOf(`${prompt('a'.repeat(100))}\n${prompt('b')}\n`, { chunkBytes: 16 }, () => ++reads > 3);
    assert.equal(read, undefined);
  });
});

describe('mayHoldMessage', () => {
  const holds = (line: string) => mayHoldMessage(Buffer.from(line));

  it('decides from where Vigil writes the record\'s names, not from text inside it', () => {
    assert.equal(holds(prompt('x')), true);
    assert.equal(holds(chunk('x')), true);
    assert.equal(holds(toolOutput('{"type":"userPrompt"} and "agent_message_chunk"')), false, 'a tool update naming them in its text');
    assert.equal(holds(JSON.stringify({ type: 'notice', level: 'info', text: '"agent_message_chunk"', at: 1 })), false);
  });

  it('searches a line written in another key order whole, so its message is still found', () => {
    const late = JSON.stringify({ at: 1, pad: 'p'.repeat(600), update: { content: { type: 'text', text: 'x' }, sessionUpdate: 'agent_message_chunk' }, type: 'agentUpdate' });
    assert.equal(holds(late), true);
    assert.equal(holds(JSON.stringify({ source: 'user', text: 'x', type: 'userPrompt' })), true);
  });
});
