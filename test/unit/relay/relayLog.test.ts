// The relay's durable log is replayed from the file a piece at a time (never read whole, never parsed) and
// forgets only what a window acknowledged.

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { framed, openFrame, RelayLog, seqOf, type LogPiece } from '../../../src/extension/core/relay/relayLog';

const line = (s: number, text: string) => framed(openFrame({ t: 'm', m: { jsonrpc: '2.0', method: 'session/update', params: { text } } }), s);

function readAll(read: () => LogPiece | undefined): LogPiece[] {
  const pieces: LogPiece[] = [];
  for (let piece = read(); piece; piece = read()) pieces.push(piece);
  return pieces;
}

describe('relay log', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-relay-log-'));
    file = path.join(dir, 'undelivered.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('replays a log many times its piece in pieces of at most one piece (a longer line whole), the bytes as written, with each line’s number and end', () => {
    const log = new RelayLog(file);
    const lines = Array.from({ length: 200 }, (_, i) => line(i + 1, i === 77 ? 'z'.repeat(1_000) : `chunk ${i}`));
    for (const l of lines) log.append(l);
    const pieces = readAll(log.reader(256));
    assert.ok(pieces.length > 20, `${pieces.length} pieces`);
    for (const piece of pieces) {
      const one = piece.marks.length === 2;
      assert.ok(piece.bytes.length <= 256 || one, `a piece of ${piece.bytes.length} bytes and ${piece.marks.length / 2} lines`);
    }
    const bytes = Buffer.concat(pieces.map((p) => p.bytes));
    assert.ok(bytes.equals(readFileSync(file)), 'the bytes as written');
    const marks = pieces.flatMap((p) => p.marks);
    let end = 0;
    lines.forEach((l, i) => {
      end += Buffer.byteLength(l) + 1;
      assert.deepEqual(marks.slice(2 * i, 2 * i + 2), [i + 1, end]);
    });
  });

  it('forgets what was acknowledged: the next reader starts after it, its requests leave the log, an emptied log is removed', () => {
    const log = new RelayLog(file);
    log.append(line(1, 'one'));
    log.append(framed(openFrame({ t: 'm', m: { jsonrpc: '2.0', id: 7, method: 'session/request_permission' } }), 2), '7');
    log.append(line(3, 'three'));
    log.append(framed(openFrame({ t: 'm', m: { jsonrpc: '2.0', id: 'x', method: 'fs/read_text_file' } }), 4), '"x"');
    assert.deepEqual([...log.requestKeys()], ['7', '"x"']);
    const [piece] = readAll(log.reader());
    log.ackedTo(piece.marks[5]);
    assert.deepEqual([...log.requestKeys()], ['"x"'], 'the acknowledged request is no longer in the log');
    const rest = readAll(log.reader());
    assert.equal(Buffer.concat(rest.map((p) => p.bytes)).toString(), `${framed(openFrame({ t: 'm', m: { jsonrpc: '2.0', id: 'x', method: 'fs/read_text_file' } }), 4)}\n`);
    assert.ok(existsSync(file), 'kept until acknowledged');
    log.ackedTo(rest[0].marks[1]);
    assert.equal(log.bytes, 0);
    assert.ok(!existsSync(file), 'removed once all of it was acknowledged');
    log.append(line(5, 'five'));
    assert.deepEqual(readAll(log.reader()).flatMap((p) => p.marks), [5, Buffer.byteLength(line(5, 'five')) + 1], 'a new log starts afresh');
  });

  it('reads the number a framed line ends with, without parsing it; -1 for a line without one', () => {
    const read = (text: string) => seqOf(Buffer.from(text), 0, Buffer.byteLength(text));
    assert.equal(read(framed(openFrame({ t: 'o', method: 'session/prompt', m: { s: 3 } }), 12345)), 12345);
    assert.equal(read('{"t":"m","m":{"s":3}}'), -1);
    assert.equal(read('{"s":}'), -1);
    assert.equal(read('not json'), -1);
  });
});
