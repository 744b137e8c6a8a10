// Redaction sits on every streamed chunk, every record and every message to the view: its cost per chunk
// and per megabyte, with a realistic set of secrets (CPU time; figures, not assertions).

import * as os from 'node:os';
import { Redactor } from '../src/extension/core/common/redactor';
import { RecordRedaction } from '../src/extension/core/store/recordRedaction';
import type { RecordInput } from '../src/extension/core/store/transcriptRecords';

/** Three provider keys, an MCP header token and two agent env tokens: more than most people configure. */
const SECRETS = [
  'sk-ant-api03-Xb7Qz9LmN2pR4sT6uV8wY0aC2eG4iK6mO8qS0uW2yA4cE6gI8kM0oQ2sU4wY6-AbCdEfGh',
  'sk-proj-4f9c1e7a2b8d60534f9c1e7a2b8d6053abcdefABCDEF0123456789',
  'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY',
  'ghp_16C7e42F292c6912E7710c838347Ae178B4a',
  'tok_abcdefgh12345678/with+base64=chars',
  'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==',
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Prose as a model streams it, in pieces of 20–60 characters; every word's first letter is a key's too, often. */
function chunks(count: number): string[] {
  const words = 'the results show a set of source files; see src/app.ts and ask about keys, tokens and access'.split(' ');
  const out: string[] = [];
  let seed = 7;
  for (let i = 0; i < count; i += 1) {
    let piece = '';
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const target = 20 + (seed % 40);
    while (piece.length < target) piece += `${words[(seed = (seed * 1103515245 + 12345) & 0x7fffffff) % words.length]} `;
    out.push(piece.slice(0, target));
  }
  return out;
}

function turnRecords(pieces: string[]): RecordInput[] {
  const records: RecordInput[] = [];
  pieces.forEach((text, i) => {
    const kind = i % 50 < 10 ? 'agent_thought_chunk' : 'agent_message_chunk';
    records.push({ type: 'agentUpdate', turnId: 't', update: { sessionUpdate: kind, messageId: `m${Math.floor(i / 50)}`, content: { type: 'text', text } } });
    if (i % 50 === 49) {
      records.push({ type: 'agentUpdate', turnId: 't', update: { sessionUpdate: 'tool_call', toolCallId: `c${i}`, title: 'Read src/app.ts', kind: 'read', status: 'pending', rawInput: { path: 'src/app.ts' } } });
    }
  });
  records.push({ type: 'turnEnded', turnId: 't', reason: 'completed' });
  return records;
}

/** Median CPU time of the runs, in ms: on a shared machine, time spent waiting for a core is not the code's. */
function timeRuns(runs: number, body: () => void): number {
  const samples: number[] = [];
  for (let r = 0; r < runs; r += 1) {
    const t0 = process.cpuUsage();
    body();
    const used = process.cpuUsage(t0);
    samples.push((used.user + used.system) / 1000);
  }
  return median(samples);
}

function main(): void {
  const redactor = new Redactor();
  redactor.add(SECRETS);
  const pieces = chunks(20_000);
  const records = turnRecords(pieces);

  const stream = timeRuns(9, () => {
    const s = redactor.stream();
    for (const piece of pieces) s.push(piece);
    s.flush();
  });
  console.log(`stream of ${pieces.length} chunks, ${SECRETS.length} secrets: ${((stream * 1000) / pieces.length).toFixed(2)} µs per chunk (median of 9)`);

  const perRecord = timeRuns(9, () => {
    const redaction = new RecordRedaction(redactor);
    for (const record of records) redaction.apply(record);
  });
  console.log(`transcript records of one turn (${records.length}: message and thought chunks, tool calls): ${((perRecord * 1000) / records.length).toFixed(2)} µs per record (median of 9)`);

  const megabyte = pieces.join('\n').slice(0, 1 << 20);
  const plain = timeRuns(9, () => redactor.redact(megabyte));
  console.log(`redact 1 MB of tool output without a secret: ${plain.toFixed(2)} ms (median of 9)`);
  const withSecrets = megabyte.replace(/keys/g, () => SECRETS[0]);
  const dense = timeRuns(9, () => redactor.redact(withSecrets));
  console.log(`redact 1 MB holding ${withSecrets.split(SECRETS[0]).length - 1} keys: ${dense.toFixed(2)} ms (median of 9)`);

  const adds = timeRuns(9, () => new Redactor().add(SECRETS));
  console.log(`learn ${SECRETS.length} secrets: ${(adds * 1000).toFixed(1)} µs (median of 9)`);
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
}

main();
