// Transcripts: batched durable appends, fencing, tail reads without the whole file, corrupt and torn lines.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { SessionStore } from '../../../src/extension/core/store/sessionStore';
import { readTranscriptTail } from '../../../src/extension/core/store/transcript';
import { VigilError, isVigilError } from '../../../src/extension/core/common/errors';
import { transcriptFile } from '../../../src/extension/core/store/storePaths';
import { recordingLogger, tempRoot } from '../supervisor/harness';

async function session() {
  const root = await tempRoot();
  const s = new SessionStore(root, recordingLogger([]));
  await s.init();
  await s.create('t', 's1');
  return { s, file: transcriptFile(root, 's1') };
}

const note = (text: string) => ({ type: 'notice' as const, level: 'info' as const, text });

describe('transcript', () => {
  it('coalesces appends made in one tick into one guarded write, in order', async () => {
    const { s } = await session();
    let writes = 0;
    const w = s.transcriptWriter('s1', (write) => {
      writes += 1;
      return write();
    });
    await Promise.all(Array.from({ length: 500 }, (_, i) => w.append(note(`n${i}`))));
    assert.ok(writes <= 2, `writes: ${writes}`);
    const all = await s.readAll('s1');
    assert.deepEqual(all.records.map((r) => (r.type === 'notice' ? r.text : '')), Array.from({ length: 500 }, (_, i) => `n${i}`));
  });

  it('a refused guard (stale epoch) rejects the batch and writes nothing', async () => {
    const { s } = await session();
    const w = s.transcriptWriter('s1', () => Promise.reject(new VigilError('STALE_EPOCH', 'stale')));
    await assert.rejects(w.append(note('x')), (e) => isVigilError(e, 'STALE_EPOCH'));
    assert.equal((await s.readAll('s1')).records.length, 0);
  });

  it('reads the last N records of a 10,000-record transcript from its end', async () => {
    const { s, file } = await session();
    const w = s.transcriptWriter('s1');
    await w.append(Array.from({ length: 10_000 }, (_, i) => note(`record ${i} ${'é'.repeat(i % 7)}`)));
    const tail = await s.readTail('s1', 3);
    assert.deepEqual(tail.records.map((r) => (r.type === 'notice' ? r.text.split(' ')[1] : '')), ['9997', '9998', '9999']);
    // Small chunks force the backwards scan across many chunk boundaries (multi-byte text included).
    const small = await readTranscriptTail(file, 50, 97);
    assert.equal(small.records.length, 50);
    assert.equal((small.records[0] as { text: string }).text.split(' ')[1], '9950');
    assert.equal((await s.readTail('s1', 20_000)).records.length, 10_000);
  });

  it('a corrupt line is moved to quarantine and reported, the good records kept; a torn tail is ignored', async () => {
    const { s, file } = await session();
    await s.transcriptWriter('s1').append([note('a'), note('b')]);
    await fs.appendFile(file, '{not json}\n{"type":"unknown","at":1}\n');
    await s.transcriptWriter('s1').append(note('c'));
    await fs.appendFile(file, '{"type":"notice","at":1,"lev');
    const all = await s.readAll('s1');
    assert.deepEqual(all.records.map((r) => (r as { text: string }).text), ['a', 'b', 'c']);
    assert.equal(all.corrupt.length, 2);
    assert.equal(all.tornTail, true);
    assert.match(await fs.readFile(`${file}.quarantine`, 'utf8'), /not json/);
    const tail = await s.readTail('s1', 2);
    assert.deepEqual(tail.records.map((r) => (r as { text: string }).text), ['b', 'c'], 'N records, skipping corrupt lines');
    assert.equal(tail.corrupt.length, 0, 'the full read moved the corrupt lines out (quarantine.test.ts covers the tail reporting them)');
    // An append after a torn tail starts on a fresh line, so the new record is intact.
    await s.transcriptWriter('s1').append(note('d'));
    assert.deepEqual((await s.readTail('s1', 1)).records.map((r) => (r as { text: string }).text), ['d']);
  });

  it('reading a missing transcript yields nothing', async () => {
    const { s } = await session();
    assert.deepEqual((await s.readTail('s1', 5)).records, []);
    assert.deepEqual((await s.readAll('s1')).records, []);
  });
});
