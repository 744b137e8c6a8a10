// Corrupt transcript lines are moved out (the transcript rewritten without them): told once, quarantine not growing, no append lost.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { TurnLeaseStore } from '../../../src/extension/core/lease/turnLease';
import { SessionStore } from '../../../src/extension/core/store/sessionStore';
import { transcriptFile } from '../../../src/extension/core/store/storePaths';
import { FakeClock } from '../../fakes/fakeClock';
import { recordingLogger, tempRoot } from '../supervisor/harness';

const note = (text: string) => ({ type: 'notice' as const, level: 'info' as const, text });
const texts = (records: readonly unknown[]) => records.map((r) => (r as { text: string }).text);

async function session() {
  const root = await tempRoot();
  const store = new SessionStore(root, recordingLogger([]));
  await store.init();
  await store.create('t', 's1');
  return { root, store, file: transcriptFile(root, 's1') };
}

const quarantined = async (file: string) => (await fs.readFile(`${file}.quarantine`, 'utf8')).split('\n').filter(Boolean).length;

describe('transcript quarantine', () => {
  it('moves corrupt lines out once: the next open reports none and the quarantine does not grow', async () => {
    const { store, file } = await session();
    await store.transcriptWriter('s1').append([note('a'), note('b')]);
    await fs.appendFile(file, '{not json}\n{"type":"unknown","at":1}\n');
    await store.transcriptWriter('s1').append(note('c'));
    const first = await store.readTail('s1', 10);
    assert.equal(first.corrupt.length, 2, 'the first open reports them (the person is told)');
    await store.moveCorrupt('s1');
    for (let open = 0; open < 3; open += 1) {
      const again = await store.readTail('s1', 10);
      assert.equal(again.corrupt.length, 0, `open ${open + 2} reports nothing again`);
      assert.deepEqual(texts(again.records), ['a', 'b', 'c']);
      await store.moveCorrupt('s1');
      assert.equal(await quarantined(file), 2, 'the quarantine holds each bad line once');
    }
    assert.match(await fs.readFile(`${file}.quarantine`, 'utf8'), /not json/);
  });

  it('a live fenced appender loses nothing while corrupt lines are moved', async () => {
    const { root, store, file } = await session();
    const lease = new TurnLeaseStore(root, new FakeClock(), recordingLogger([]), { ttlMs: 60_000 });
    const got = await lease.acquire('s1', lease.holderFor('w', 't'));
    assert.ok(got.kind === 'acquired');
    const writer = store.transcriptWriter('s1', lease.guard(got.token));
    const expected: string[] = [];
    for (let round = 0; round < 15; round += 1) {
      await fs.appendFile(file, `{broken ${round}\n`);
      const appends: Promise<void>[] = [];
      const moving = store.moveCorrupt('s1');
      for (let i = 0; i < 20; i += 1) {
        expected.push(`r${round}-${i}`);
        appends.push(writer.append(note(`r${round}-${i}`)));
        if (i % 5 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.all([moving, ...appends]);
      await store.moveCorrupt('s1');
    }
    const all = await store.readAll('s1');
    assert.deepEqual(texts(all.records), expected);
    assert.equal(all.corrupt.length, 0);
    assert.equal(await quarantined(file), 15);
  });
});
