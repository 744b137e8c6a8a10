// Searching sessions: ranked (title hits first, newest first in each), literal and case-insensitive, bounded (hit
// limit, time budget, bytes per session), cancelled by the next search, and served from the text kept before.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { SessionSearch, normalizeQuery, type SearchableSession, type SessionSearchDeps } from '../../../src/extension/core/search/sessionSearch';
import type { ReadHandle } from '../../../src/extension/core/search/transcriptText';
import { recordingLogger, tempRoot, type LogRecord } from '../supervisor/harness';
import { chunk, prompt, toolOutput } from './records';

interface Fixture {
  root: string;
  sessions: SearchableSession[];
  opened: string[];
  deps: SessionSearchDeps;
}

/** Sessions s0 (oldest) … sN, each a transcript of the given lines; `opened` lists every transcript read. */
async function fixture(transcripts: Array<{ title: string; lines: string[] }>, extra: Partial<SessionSearchDeps> = {}): Promise<Fixture> {
  const root = await tempRoot();
  const opened: string[] = [];
  const sessions = await Promise.all(
    transcripts.map(async ({ title, lines }, i) => {
      await fs.mkdir(path.join(root, `s${i}`));
      await fs.writeFile(path.join(root, `s${i}`, 'transcript.jsonl'), `${lines.join('\n')}\n`);
      return { id: `s${i}`, title, updatedAt: 1_000 + i };
    }),
  );
  const deps: SessionSearchDeps = {
    transcriptPath: (id) => path.join(root, id, 'transcript.jsonl'),
    open: async (file) => {
      opened.push(path.basename(path.dirname(file)));
      return fs.open(file, 'r');
    },
    ...extra,
  };
  return { root, sessions, opened, deps };
}

const ids = (hits: ReadonlyArray<{ sessionId: string }>) => hits.map((h) => h.sessionId);

describe('SessionSearch', () => {
  it('ranks title hits above transcript hits, the more recent first in each, and shows the hit in a snippet', async () => {
    const f = await fixture([
      { title: 'Old parser work', lines: [prompt('nothing')] },
      { title: 'Tabs', lines: [prompt('Why does the PARSER fail?'), chunk('It reads tabs as spaces.')] },
      { title: 'Lexer', lines: [prompt('hello'), chunk('The parser'), chunk(' is fine now.')] },
      { title: 'New Parser ideas', lines: [prompt('nothing')] },
      { title: 'Unrelated', lines: [prompt('nothing')] },
    ]);
    const result = await new SessionSearch(f.deps).search('  parser ', f.sessions);
    assert.deepEqual(ids(result.hits), ['s3', 's0', 's2', 's1']);
    assert.deepEqual(result.hits.map((h) => h.where), ['title', 'title', 'transcript', 'transcript']);
    assert.equal(result.hits[2].snippet, 'The parser is fine now.', 'the agent message the hit is in, its chunks joined');
    assert.equal(result.hits[3].snippet, 'Why does the PARSER fail?');
    assert.deepEqual([result.query, result.searched, result.total, result.stopped, result.cancelled], ['parser', 5, 5, undefined, false]);
    assert.deepEqual(f.opened.sort(), ['s1', 's2', 's4'], 'a title hit needs no transcript');
  });

  it('takes the query as literal text: pattern characters match themselves, and a catastrophic pattern costs nothing', async () => {
    const evil = `(a+)+$${'a'.repeat(30)}!`;
    const f = await fixture([
      { title: 'one', lines: [prompt(`grep for [a-z]+.* in ${'a'.repeat(5_000)}`)] },
      { title: 'two', lines: [prompt('letters only abc')] },
      { title: 'three', lines: [prompt(`${'a'.repeat(10_000)}`)] },
    ]);
    const search = new SessionSearch(f.deps);
    assert.deepEqual(ids((await search.search('[A-Z]+.*', f.sessions)).hits), ['s0']);
    assert.deepEqual(ids((await search.search(evil, f.sessions)).hits), []);
    assert.deepEqual(ids((await search.search('ABC', f.sessions)).hits), ['s1']);
  });

  it('finds a phrase however its words were spaced or broken across lines, and cuts a long query', async () => {
    const f = await fixture([{ title: 't', lines: [prompt('Rename the\n\n   build   step')] }]);
    assert.deepEqual(ids((await new SessionSearch(f.deps).search('the build\tstep', f.sessions)).hits), ['s0']);
    assert.equal(normalizeQuery(`x${' '.repeat(100)}y${'z'.repeat(1_000)}`), `x y${'z'.repeat(197)}`);
    assert.equal(normalizeQuery('\u202e\u0000 '), '');
  });

  it('an empty query reads nothing', async () => {
    const f = await fixture([{ title: 't', lines: [prompt('x')] }]);
    const result = await new SessionSearch(f.deps).search(' \t ', f.sessions);
    assert.deepEqual([result.hits.length, f.opened.length], [0, 0]);
  });

  it('stops at the hit limit, since every older session would rank lower, and says so', async () => {
    const f = await fixture(Array.from({ length: 6 }, (_, i) => ({ title: `t${i}`, lines: [prompt(`needle ${i}`)] })), { limits: { limit: 2 } });
    const result = await new SessionSearch(f.deps).search('needle', f.sessions);
    assert.deepEqual(ids(result.hits), ['s5', 's4']);
    assert.deepEqual([result.stopped, result.searched], ['limit', 2]);
    assert.deepEqual(f.opened, ['s5', 's4'], 'the older transcripts were never opened');
  });

  it('stops when its time is spent, keeps what it found, and says how many sessions it searched', async () => {
    let clock = 0;
    const f = await fixture(
      Array.from({ length: 5 }, (_, i) => ({ title: `t${i}`, lines: [prompt(i === 4 ? 'needle' : 'hay')] })),
      { now: () => clock, limits: { budgetMs: 100 } },
    );
    const open = f.deps.open!;
    f.deps.open = async (file) => {
      clock += 40;
      return open(file);
    };
    const result = await new SessionSearch(f.deps).search('needle', f.sessions);
    assert.deepEqual(ids(result.hits), ['s4']);
    assert.deepEqual([result.stopped, result.searched, result.total], ['time', 2, 5]);
  });

  it('counts transcripts searched only in their first bytes, and those it could not read, and searches the rest', async () => {
    const logs: LogRecord[] = [];
    const f = await fixture(
      [
        { title: 'a', lines: [prompt('needle early'), toolOutput('x'.repeat(2_000)), prompt('late')] },
        { title: 'b', lines: [prompt('needle')] },
        { title: 'c', lines: [prompt('needle')] },
      ],
      { limits: { maxBytesPerSession: 1_000 }, logger: recordingLogger(logs) },
    );
    const open = f.deps.open!;
    f.deps.open = async (file) => {
      if (file.includes(`${path.sep}s1${path.sep}`)) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
      return open(file);
    };
    await fs.rm(path.join(f.root, 's2', 'transcript.jsonl'));
    const result = await new SessionSearch(f.deps).search('needle', f.sessions);
    assert.deepEqual(ids(result.hits), ['s0']);
    assert.deepEqual([result.cut, result.unreadable, result.searched], [1, 1, 3]);
    assert.match(logs.map((l) => l.message).join('\n'), /session s1 could not be read: EACCES/);
  });

  it('does not open a transcript that is not a regular file (a pipe would hold the read forever)', async function () {
    if (process.platform === 'win32') this.skip();
    const f = await fixture([
      { title: 'a', lines: [prompt('needle')] },
      { title: 'b', lines: [prompt('needle')] },
    ]);
    const fifo = path.join(f.root, 's1', 'transcript.jsonl');
    await fs.rm(fifo);
    execFileSync('mkfifo', [fifo]);
    const result = await new SessionSearch(f.deps).search('needle', f.sessions);
    assert.deepEqual([ids(result.hits), result.unreadable, f.opened], [['s0'], 1, ['s0']]);
  });

  it('does not wait on a pipe swapped in for a transcript after it was checked', async function () {
    if (process.platform === 'win32') this.skip();
    const f = await fixture([
      { title: 'a', lines: [prompt('needle')] },
      { title: 'b', lines: [prompt('needle')] },
    ]);
    const fifo = path.join(f.root, 's1', 'transcript.jsonl');
    await fs.rm(fifo);
    execFileSync('mkfifo', [fifo]);
    // The check saw a file; the default open meets the pipe.
    const stale = { size: 7, mtimeMs: 7, isFile: () => true };
    const search = new SessionSearch({ transcriptPath: f.deps.transcriptPath, stat: async (file) => (file === fifo ? stale : fs.stat(file)) });
    const result = await search.search('needle', f.sessions);
    assert.deepEqual([ids(result.hits), result.unreadable], [['s0'], 1]);
  });

  it('serves a repeated search from the text kept, and reads again a transcript that changed since', async () => {
    const f = await fixture([
      { title: 'a', lines: [prompt('alpha')] },
      { title: 'b', lines: [prompt('beta')] },
    ]);
    const search = new SessionSearch(f.deps);
    await search.search('alpha', f.sessions);
    assert.deepEqual(f.opened.sort(), ['s0', 's1']);
    f.opened.length = 0;
    assert.deepEqual(ids((await search.search('BETA', f.sessions)).hits), ['s1']);
    assert.deepEqual(f.opened, [], 'nothing read again');
    await fs.appendFile(path.join(f.root, 's0', 'transcript.jsonl'), `${prompt('gamma')}\n`);
    assert.deepEqual(ids((await search.search('gamma', f.sessions)).hits), ['s0']);
    assert.deepEqual(f.opened, ['s0'], 'only the transcript that grew');
    search.clear();
    assert.equal(search.cachedChars, 0);
  });

  it('a new search cancels the one running, which lets go before the new one reads anything', async () => {
    let release!: () => void;
    const parked = new Promise<void>((resolve) => (release = resolve));
    const reading: string[] = [];
    let open = 0;
    let mostOpen = 0;
    const f = await fixture([
      { title: 'a', lines: [prompt('needle one')] },
      { title: 'b', lines: [prompt('needle two'), toolOutput('x'.repeat(100_000))] },
    ]);
    const realOpen = f.deps.open!;
    f.deps.open = async (file): Promise<ReadHandle> => {
      const handle = await realOpen(file);
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      reading.push(path.basename(path.dirname(file)));
      if (reading.length === 1) await parked;
      return { stat: () => handle.stat(), read: (...args) => handle.read(...args), close: async () => (open -= 1, handle.close()) };
    };
    const search = new SessionSearch(f.deps);
    const first = search.search('needle', f.sessions);
    while (reading.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const second = search.search('needle two', f.sessions);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(reading, ['s1'], 'the second search waits for the first to let go');
    release();
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.cancelled, true);
    assert.deepEqual(ids(b.hits), ['s1']);
    assert.equal(b.cancelled, false);
    assert.equal(mostOpen, 1, 'never two transcripts read at once');
  });

  it('a caller\'s abort cancels the search', async () => {
    const f = await fixture([{ title: 'a', lines: [prompt('needle')] }]);
    const controller = new AbortController();
    controller.abort();
    const result = await new SessionSearch(f.deps).search('needle', f.sessions, { signal: controller.signal });
    assert.deepEqual([result.cancelled, f.opened.length], [true, 0]);
  });
});
