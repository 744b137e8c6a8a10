// An ACP-ish agent that answers each line at once, for bench/relay.bench.ts: the same program runs as the
// host's child and behind the relay. Every message it writes carries `at`, the time it was written on the
// system's monotonic clock (process.hrtime, shared by every process of the machine), so the reader knows
// how long the message took to reach it.
//
// Requests: `ping` → `{ at }`; `stream { n, bytes }` → n `session/update` agent_message_chunks of `bytes`
// characters, each stamped, then `{ at }`; `big { bytes }` → `{ at, blob }`, one frame of that size.

import * as readline from 'node:readline';

const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;
const write = (m: unknown): void => void process.stdout.write(`${JSON.stringify(m)}\n`);

function answer(id: unknown, method: string, params: Record<string, number>): void {
  if (method === 'stream') {
    const text = 'x'.repeat(params.bytes ?? 1024);
    for (let i = 0; i < (params.n ?? 1); i += 1) {
      write({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'bench', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text }, i, at: nowMs() } } });
    }
    write({ jsonrpc: '2.0', id, result: { at: nowMs() } });
  } else if (method === 'big') {
    write({ jsonrpc: '2.0', id, result: { at: nowMs(), blob: 'y'.repeat(params.bytes ?? 1 << 20) } });
  } else {
    write({ jsonrpc: '2.0', id, result: { at: nowMs() } });
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line) as { id?: unknown; method?: string; params?: Record<string, number> };
  if (m.method !== undefined && m.id !== undefined) answer(m.id, m.method, m.params ?? {});
});
