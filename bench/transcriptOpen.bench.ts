// Opening a session: the host's part of first paint for 100 MB transcripts of different shapes, through
// the path an open takes (sessionController.open): the session store's tail read (corrupt-line check
// included) and the presenter building the snapshot the view is sent (figures, not assertions).
// The webview's own paint of that snapshot is measured by webviewPaint.bench.ts.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { silentLogger } from '../src/extension/core/ports/logger';
import { SessionStore } from '../src/extension/core/store/sessionStore';
import { transcriptFile } from '../src/extension/core/store/storePaths';
import { SessionPresenter } from '../src/extension/presentation/sessionPresenter';
import { loadNote } from './support/cpuHogs';

const MB = 1024 * 1024;
const TOTAL = 100 * MB;
/** What the session view asks for at open (sessionController's tail). */
const TAIL_RECORDS = 10_000;

const notice = (i: number, text: string) => JSON.stringify({ type: 'notice', level: 'info', text, at: 1_700_000_000_000 + i });

/** Writes `TOTAL` bytes of lines made by `line(i)`, in 4 MB appends; `last` is appended as is. */
async function build(file: string, line: (i: number) => string, last = ''): Promise<void> {
  const handle = await fs.open(file, 'w');
  let written = 0;
  let i = 0;
  let buffer: string[] = [];
  let size = 0;
  while (written + size < TOTAL - last.length - 300) {
    const l = line(i++) + '\n';
    buffer.push(l);
    size += l.length;
    if (size >= 4 * MB) {
      await handle.write(buffer.join(''));
      written += size;
      buffer = [];
      size = 0;
    }
  }
  await handle.write(buffer.join('') + last);
  await handle.close();
}

async function time(store: SessionStore, sessionId: string): Promise<{ ms: number; max: number; records: number }> {
  const times: number[] = [];
  let records = 0;
  const meta = (await store.get(sessionId))!;
  for (let i = 0; i < 5; i += 1) {
    const t0 = performance.now();
    const tail = await store.readTail(sessionId, TAIL_RECORDS);
    const presenter = new SessionPresenter({ meta, records: tail.records, live: undefined, tasks: [], approvals: [] }, () => undefined);
    if (!presenter.snapshot) throw new Error('no snapshot');
    times.push(performance.now() - t0);
    records = tail.records.length;
  }
  times.sort((a, b) => a - b);
  return { ms: times[2], max: times[4], records };
}

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-open-'));
  const store = new SessionStore(dir, silentLogger);
  await store.init();
  const { id } = await store.create('bench');
  try {
    const shapes: Array<[string, (file: string) => Promise<void>]> = [
      ['one 100 MB record (written before records were bounded)', (f) => fs.writeFile(f, notice(0, 'x'.repeat(TOTAL - 100)) + '\n')],
      ['millions of tiny records', (f) => build(f, (i) => notice(i, `m${i}`))],
      ['100 records of 1 MB (the stored bound)', (f) => build(f, (i) => notice(i, 'y'.repeat(MB - 200)))],
      ['a 100 MB last line without a newline', (f) => build(f, (i) => notice(i, `s${i}`), `{"type":"notice","text":"${'z'.repeat(TOTAL - 1000)}`)],
    ];
    for (const [name, make] of shapes) {
      const file = transcriptFile(dir, id);
      await make(file);
      const { ms, max, records } = await time(store, id);
      console.log(`open a 100 MB transcript, ${name}: ${ms.toFixed(1)} ms median, ${max.toFixed(1)} ms max of 5 to the snapshot for first paint (${records} records; ${loadNote()})`);
      await fs.rm(file);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

void main();
