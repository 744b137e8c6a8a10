// Bounded records and a tail read of any shape: huge records are stored cut with a pointer to the whole; huge lines never parsed at open.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { MAX_LINE_BYTES, MAX_RECORD_BYTES } from '../../../src/extension/core/store/recordBound';
import { readTranscriptTail, TranscriptWriter } from '../../../src/extension/core/store/transcript';
import type { TranscriptRecord } from '../../../src/extension/core/store/transcriptRecords';
import { tempRoot } from '../supervisor/harness';

const note = (text: string) => ({ type: 'notice' as const, level: 'info' as const, text });
const textOf = (r: TranscriptRecord) => (r as { text?: string }).text ?? '';

async function transcript(): Promise<string> {
  return path.join(await tempRoot(), 'transcript.jsonl');
}

describe('transcript bounds', () => {
  it('an update larger than the bound is stored cut, says how much was kept, and keeps the whole beside the transcript', async () => {
    const file = await transcript();
    const w = new TranscriptWriter(file);
    const huge = 'x'.repeat(3 * 1024 * 1024);
    const written: TranscriptRecord[] = [];
    const w2 = new TranscriptWriter(file, { onWritten: (r) => written.push(...r) });
    await w.append(note('before'));
    await w2.append({ type: 'agentUpdate', turnId: 't1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: huge } } });
    await w.append(note('after'));
    const lines = (await fs.readFile(file, 'utf8')).split('\n').filter(Boolean);
    assert.equal(lines.length, 3);
    assert.ok(Buffer.byteLength(lines[1]) <= MAX_RECORD_BYTES, `stored line is ${Buffer.byteLength(lines[1])} bytes`);
    const tail = await readTranscriptTail(file, 10);
    assert.deepEqual(tail.records.map((r) => r.type), ['notice', 'agentUpdate', 'notice']);
    const cut = tail.records[1] as Extract<TranscriptRecord, { type: 'agentUpdate' }>;
    const text = (cut.update as { content: { text: string } }).content.text;
    assert.match(text, /\[… truncated by Vigil: 3\.0 MB, 1\.0 MB kept; the whole record is in .+oversize.+\.json\]$/);
    assert.ok(text.startsWith('xxxx'), 'the start of the content is kept');
    assert.equal(cut.turnId, 't1');
    assert.equal(cut.truncated?.bytes, Buffer.byteLength(JSON.stringify({ type: 'agentUpdate', turnId: 't1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: huge } }, at: cut.at })));
    const whole = JSON.parse(await fs.readFile(cut.truncated!.fullRecord, 'utf8')) as { update: { content: { text: string } } };
    assert.equal(whole.update.content.text, huge, 'nothing is lost: the whole record is where the marker says');
    assert.equal(written.length, 1);
    assert.deepEqual(written[0], cut, 'views are told exactly what was stored');
  });

  it('a record too large without any long string (a huge array) keeps its envelope and the marker', async () => {
    const file = await transcript();
    await new TranscriptWriter(file).append({ type: 'agentUpdate', turnId: 't', update: { sessionUpdate: 'plan', entries: Array.from({ length: 400_000 }, (_, i) => i) } });
    const [line] = (await fs.readFile(file, 'utf8')).split('\n');
    assert.ok(Buffer.byteLength(line) <= MAX_RECORD_BYTES);
    const [record] = (await readTranscriptTail(file, 1)).records;
    assert.equal(record.type, 'agentUpdate');
    assert.match(JSON.stringify(record), /truncated by Vigil/);
  });

  it('opens a transcript holding a line above the read bound (an older file): a notice says where it stays, the rest is read', async () => {
    const file = await transcript();
    const w = new TranscriptWriter(file);
    await w.append([note('a'), note('b')]);
    const start = (await fs.stat(file)).size;
    const big = JSON.stringify({ type: 'agentUpdate', turnId: 't9', update: { text: 'y'.repeat(MAX_LINE_BYTES + 10) }, at: 1234 });
    await fs.appendFile(file, big + '\n');
    await w.append(note('c'));
    for (const chunkSize of [97, 64 * 1024]) {
      const tail = await readTranscriptTail(file, 10, chunkSize);
      assert.deepEqual(tail.records.map((r) => r.type), ['notice', 'notice', 'notice', 'notice']);
      const placeholder = tail.records[2];
      assert.match(textOf(placeholder), new RegExp(`agentUpdate record of 2\\.0 MB is too large to show .*kept unchanged in .* at byte ${start}\\.`));
      assert.equal(placeholder.at, 1234);
      assert.equal(placeholder.turnId, 't9');
      assert.deepEqual([textOf(tail.records[0]), textOf(tail.records[1]), textOf(tail.records[3])], ['a', 'b', 'c']);
    }
  });

  it('a huge last line without a newline (a torn write) is skipped, and the records before it are read', async () => {
    const file = await transcript();
    await new TranscriptWriter(file).append([note('a'), note('b')]);
    await fs.appendFile(file, `{"type":"notice","text":"${'z'.repeat(3 * 1024 * 1024)}`);
    const tail = await readTranscriptTail(file, 5, 1000);
    assert.deepEqual(tail.records.map(textOf), ['a', 'b']);
    assert.equal(tail.corrupt.length, 0);
  });

  it('stops at the byte budget and says older records were left out', async () => {
    const file = await transcript();
    await new TranscriptWriter(file).append(Array.from({ length: 100 }, (_, i) => note(`${i} ${'q'.repeat(1000)}`)));
    const tail = await readTranscriptTail(file, 100, { maxBytes: 20_000 });
    assert.ok(tail.records.length > 5 && tail.records.length < 25, String(tail.records.length));
    assert.equal(tail.olderOmitted, true);
    assert.equal(textOf(tail.records[tail.records.length - 1]).split(' ')[0], '99');
    assert.equal((await readTranscriptTail(file, 100)).olderOmitted, false);
  });
});
