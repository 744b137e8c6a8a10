// Opening a session: time to read the tail for first paint of 100 MB transcripts of different shapes (figures, not assertions).

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readTranscriptTail } from '../src/extension/core/store/transcript';

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

async function time(file: string): Promise<{ ms: number; records: number }> {
  const times: number[] = [];
  let records = 0;
  for (let i = 0; i < 5; i += 1) {
    const t0 = performance.now();
    const tail = await readTranscriptTail(file, TAIL_RECORDS);
    times.push(performance.now() - t0);
    records = tail.records.length;
  }
  times.sort((a, b) => a - b);
  return { ms: times[2], records };
}

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-open-'));
  try {
    const shapes: Array<[string, (file: string) => Promise<void>]> = [
      ['one 100 MB record (written before records were bounded)', (f) => fs.writeFile(f, notice(0, 'x'.repeat(TOTAL - 100)) + '\n')],
      ['millions of tiny records', (f) => build(f, (i) => notice(i, `m${i}`))],
      ['100 records of 1 MB (the stored bound)', (f) => build(f, (i) => notice(i, 'y'.repeat(MB - 200)))],
      ['a 100 MB last line without a newline', (f) => build(f, (i) => notice(i, `s${i}`), `{"type":"notice","text":"${'z'.repeat(TOTAL - 1000)}`)],
    ];
    for (const [name, make] of shapes) {
      const file = path.join(dir, 'transcript.jsonl');
      await make(file);
      const { ms, records } = await time(file);
      console.log(`open a 100 MB transcript, ${name}: ${ms.toFixed(1)} ms median to the tail for first paint (${records} records)`);
      await fs.rm(file);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

void main();
