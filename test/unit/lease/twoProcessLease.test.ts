// docs/turn-supervisor.md I18 with two real processes: a holder frozen (SIGSTOP) past its TTL wakes up and cannot corrupt the new holder's transcript.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { SessionStore } from '../../../src/extension/core/store/sessionStore';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import { LineProtocolChild } from '../../fakes/lineProtocolChild';
import { tempRoot } from '../supervisor/harness';

const FIXTURE = path.join(__dirname, '..', '..', 'fixtures', 'lease', 'leaseHolder.js');
const TTL_MS = 1_500;

describe('turn lease across two real processes', () => {
  it('I18 a holder frozen past its TTL (SIGSTOP) wakes up (SIGCONT) and its stale-epoch write is refused', async function () {
    this.timeout(30_000);
    const root = await tempRoot();
    const store = new SessionStore(root, silentLogger);
    await store.init();
    await store.create('shared', 's1');
    const a = new LineProtocolChild(FIXTURE, [root, 's1', 'window-a', String(TTL_MS)]);
    const b = new LineProtocolChild(FIXTURE, [root, 's1', 'window-b', String(TTL_MS)]);
    try {
      await Promise.all([a.ready, b.ready]);
      // Taken before A acquires: A's expiry (its wall clock + TTL) is at or after this + TTL.
      const acquiredAt = Date.now();
      const first = await a.send({ cmd: 'acquire', turnId: 'turn-a' });
      assert.equal(first.kind, 'acquired');
      assert.deepEqual(await a.send({ cmd: 'append', text: 'A1' }), { ok: true });
      assert.equal((await b.send({ cmd: 'acquire', turnId: 'turn-b' })).kind, 'busy', 'A is alive and within its TTL');

      a.child.kill('SIGSTOP');
      let second: Record<string, unknown>;
      for (;;) {
        second = await b.send({ cmd: 'acquire', turnId: 'turn-b' });
        if (second.kind === 'acquired') break;
        assert.ok(Date.now() - acquiredAt < 10_000, 'B never reclaimed the expired lease');
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(Date.now() - acquiredAt >= TTL_MS, 'reclaimed only after the TTL');
      assert.equal(second.reclaimed, 'expired');
      assert.ok((second.epoch as number) > (first.epoch as number));
      assert.deepEqual(await b.send({ cmd: 'append', text: 'B1' }), { ok: true });

      a.child.kill('SIGCONT');
      const stale = await a.send({ cmd: 'append', text: 'A2' });
      assert.equal(stale.code, 'STALE_EPOCH', JSON.stringify(stale));
      assert.deepEqual(await a.send({ cmd: 'refresh' }), { result: 'lost' });
      assert.deepEqual(await b.send({ cmd: 'append', text: 'B2' }), { ok: true });

      const records = (await store.readAll('s1')).records;
      const summary = records.map((r) => (r.type === 'notice' ? r.text : r.type === 'interrupted' ? `interrupted:${r.turnId}` : r.type));
      assert.deepEqual(summary, ['A1', 'interrupted:turn-a', 'B1', 'B2']);
      assert.equal((await store.get('s1'))?.state, 'interrupted');
    } finally {
      a.stop('SIGKILL');
      b.stop('SIGKILL');
    }
  });
});
