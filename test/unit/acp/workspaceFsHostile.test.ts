// The worst files a repository can hold, thrown at WorkspaceFs at once: four parallel reads of a FIFO, a UNIX socket,
// sparse 400 MB files read whole, by range and scanned to the end. The host's event loop and its fs threads must keep
// working meanwhile (a timer keeps firing and its fs calls complete), and memory stays bounded.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { maxRangeBytes } from '../../../src/extension/core/acp/lineRangeReader';
import { WorkspaceFs } from '../../../src/extension/core/acp/workspaceFs';
import { HostileRepo } from '../../fakes/hostileRepo';

describe('workspace file access with a FIFO, a socket and 400 MB files', function () {
  this.timeout(60_000);
  let repo: HostileRepo;
  let ws: WorkspaceFs;
  let big: { lines: string; nul: string };
  let timer: NodeJS.Timeout | undefined;

  beforeEach(async () => {
    repo = await HostileRepo.create();
    big = await repo.addBigFiles();
    ws = new WorkspaceFs(repo.ws);
  });
  afterEach(async () => {
    clearInterval(timer);
    await repo.dispose();
  });

  const read = async (p: string, line?: number, limit?: number, signal?: AbortSignal) => ws.read(await ws.locate(p), line, limit, signal);

  /**
   * A watchdog stand-in: a 1 ms interval whose every tick makes an async fs call, as the supervisor's would. Resolves
   * `whenTicks(n)` once n ticks have fired *and* their fs calls completed: impossible while the fs threads are blocked.
   */
  function watchdog(): { whenTicks(n: number): Promise<void>; onTick(fn: (ticks: number) => void): void } {
    let done = 0;
    const waiters: Array<{ n: number; resolve: () => void }> = [];
    const listeners: Array<(ticks: number) => void> = [];
    timer = setInterval(() => {
      void fs.stat(repo.base).then(() => {
        done += 1;
        for (const l of listeners) l(done);
        for (const w of waiters.filter((x) => x.n <= done)) w.resolve();
      });
    }, 1);
    return {
      whenTicks: (n) => new Promise((resolve) => waiters.push({ n, resolve })),
      onTick: (fn) => listeners.push(fn),
    };
  }

  it('refuses four parallel FIFO reads and the worst inputs while the event loop and fs keep running', async () => {
    const dog = watchdog();
    // A full scan of 400 MB: cancelled from the timer itself, which proves the timer fired while the scan was running.
    const scan = new AbortController();
    dog.onTick((ticks) => ticks >= 3 && scan.abort());
    const top = await ws.locate(repo.ws);
    const hostile = [
      ...[1, 2, 3, 4].map(() => read(repo.p('fifo'))),
      read(repo.p('sock')),
      ...(repo.device ? [read(repo.device)] : []),
      read(big.nul),
      read(big.nul, 1, 1),
      read(big.lines, 4, 1),
      ws.search(top, 'first'),
      ws.list(top),
      read(big.nul, 1_000_000_000, 1, scan.signal),
    ];
    const settled = Promise.allSettled(hostile);
    await dog.whenTicks(3);
    const outcomes = await settled;
    const messages = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).message : 'served'));
    for (const m of messages.slice(0, 4)) assert.match(m, /fifo.*it is a fifo, not a regular file/);
    assert.match(messages[4], /sock.*it is a socket, not a regular file/);
    let i = 5;
    if (repo.device) assert.match(messages[i++], /it is a character device, not a regular file/);
    assert.match(messages[i++], /File too large \(400\.0 MB\): .*big-nul\.bin\. Read a range with "line" and "limit"/);
    assert.match(messages[i++], /Range too large: line 1 of .*big-nul\.bin hold more than 8\.0 MB\. Ask for fewer lines/);
    assert.match(messages[i++], /Range too large: line 4 of .*big-lines\.txt/);
    assert.equal(messages[i++], 'served'); // search skips the FIFO, the socket and the big files
    assert.equal(messages[i++], 'served');
    assert.match(messages[i++], /Reading .*big-nul\.bin was cancelled/);
    // And the fs threads are free: the next ticks still complete.
    await dog.whenTicks(6);
  });

  it('reads a range of a 400 MB file with bounded memory', async () => {
    const before = process.memoryUsage().rss;
    // A correctness bound, not a speed one: the old whole-file read grew by gigabytes here.
    const bounded = () => {
      const grown = process.memoryUsage().rss - before;
      assert.ok(grown < 64 * 1024 * 1024, `RSS grew by ${(grown / 1024 / 1024).toFixed(1)} MB`);
    };
    assert.equal(await read(big.lines, 2, 1), 'second');
    bounded();
    assert.equal(await read(big.lines, 1, 3), 'first\nsecond\nthird');
    assert.equal(await read(big.lines, 5_000_000, 10), ''); // scanned to the end, past every line
    bounded();
    // Millions of one-byte lines: the range is copied per chunk, not per line.
    const short = repo.p('short-lines.txt');
    await fs.writeFile(short, 'a\n'.repeat(3_000_000));
    assert.equal((await read(short, 1, 3_000_000)).length, 3_000_000 * 2 - 1);
    bounded();
    await assert.rejects(read(big.lines), /File too large/);
    await assert.rejects(read(big.nul, 1, 1), /Range too large/);
    bounded();
    assert.ok(maxRangeBytes < 64 * 1024 * 1024);
  });
});
