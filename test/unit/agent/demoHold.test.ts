// The demo's test hold: its first answer stops half-way until the hold file exists, then goes on.

import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DemoProvider } from '../../../src/agent/providers/demoProvider';
import type { ModelEvent } from '../../../src/agent/providers/types';

describe('demo model hold (tests only)', () => {
  it('holds the first answer half-way until the file exists, then finishes it', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-demo-hold-'));
    const hold = path.join(dir, 'release');
    try {
      const demo = new DemoProvider(0, hold);
      const request = { messages: [{ role: 'user', text: 'hello' }] } as unknown as Parameters<DemoProvider['stream']>[0];
      const events: ModelEvent[] = [];
      const iterator = demo.stream(request, new AbortController().signal)[Symbol.asyncIterator]();
      // Pull until the stream blocks on the hold: a pull that has not settled once the file system was polled.
      let blocked: Promise<IteratorResult<ModelEvent>> | undefined;
      for (;;) {
        const next = iterator.next();
        const settled = await Promise.race([next.then(() => true), new Promise<boolean>((r) => setImmediate(() => setImmediate(() => r(false))))]);
        if (!settled) {
          blocked = next;
          break;
        }
        const r = await next;
        if (r.done) break;
        events.push(r.value);
      }
      assert.ok(blocked, 'the stream held');
      assert.ok(events.length > 0 && events.every((e): boolean => e.kind === 'text'), 'part of the answer came before the hold');
      await fs.writeFile(hold, 'go');
      for (let r = await blocked; !r.done; r = await iterator.next()) events.push(r.value);
      assert.equal(events.at(-1)?.kind, 'end');
      const text = events.flatMap((e) => (e.kind === 'text' ? [e.text] : [])).join('');
      assert.match(text, /^Hello — this is the Vigil demo model/);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
