// Searching a folder's sessions (Vigil: Search Sessions…): 1,000 sessions of 1 MB each, stored as the store writes
// them, searched for a phrase only the oldest one holds (so every transcript is read): the first search in a fresh
// window, the same search again, and another query after it (figures, not assertions). Each transcript is ten
// turns: a prompt, the agent's answer streamed in 40-character chunks, and a tool call whose output is ~95 KB.

import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SessionSearch, type SearchableSession, type SearchResult } from '../src/extension/core/search/sessionSearch';
import { loadNote } from './support/cpuHogs';

const SESSIONS = 1_000;
const MB = 1024 * 1024;
const PHRASE = 'Quokka tokenizer regression';

function transcript(n: number, oldest: boolean): string {
  const lines: string[] = [];
  let size = 0;
  const push = (record: unknown) => {
    const line = JSON.stringify(record);
    lines.push(line);
    size += line.length + 1;
  };
  const at = 1_700_000_000_000 + n * 60_000;
  const output = `${'src/module.ts:12: const value = compute(input); // a line of tool output\n'.repeat(1_300)}`;
  for (let turn = 0; size < MB; turn += 1) {
    const turnId = `t${turn}`;
    push({ type: 'turnStarted', at, turnId, source: 'user', epoch: 1 });
    push({ type: 'userPrompt', at, turnId, source: 'user', text: `Session ${n}, turn ${turn}: why does the build of step ${turn} fail on CI?` });
    const answer = `The build of step ${turn} fails because the cache key of session ${n} changed; ${oldest && turn === 3 ? PHRASE : 'a regression'} in the compiler flags. `.repeat(20);
    for (let i = 0; i < answer.length; i += 40) {
      push({ type: 'agentUpdate', at, turnId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: answer.slice(i, i + 40) } } });
    }
    push({ type: 'agentUpdate', at, turnId, update: { sessionUpdate: 'tool_call', toolCallId: `c${turn}`, title: 'Run npm test', kind: 'execute', status: 'in_progress' } });
    push({ type: 'agentUpdate', at, turnId, update: { sessionUpdate: 'tool_call_update', toolCallId: `c${turn}`, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: output } }] } });
    push({ type: 'turnEnded', at, turnId, reason: 'completed' });
  }
  return `${lines.join('\n')}\n`;
}

async function seed(root: string): Promise<SearchableSession[]> {
  const sessions: SearchableSession[] = [];
  for (let n = 0; n < SESSIONS; n += 1) {
    const id = `s${String(n).padStart(4, '0')}`;
    await fs.mkdir(path.join(root, id), { recursive: true });
    await fs.writeFile(path.join(root, id, 'transcript.jsonl'), transcript(n, n === 0));
    sessions.push({ id, title: `Fix the CI build, part ${n}`, updatedAt: 1_700_000_000_000 + n * 60_000 });
  }
  return sessions;
}

async function timed(search: SessionSearch, query: string, sessions: SearchableSession[]): Promise<{ ms: number; result: SearchResult }> {
  const t0 = performance.now();
  const result = await search.search(query, sessions);
  return { ms: performance.now() - t0, result };
}

function describe(result: SearchResult): string {
  const stopped = result.stopped === 'time' ? ', stopped by the time bound' : result.stopped === 'limit' ? ', stopped at the hit limit' : '';
  return `${result.hits.length} hit(s), ${result.searched} of ${result.total} sessions searched${stopped}`;
}

async function main(): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-search-'));
  try {
    const sessions = await seed(root);
    const bytes = (await Promise.all(sessions.map((s) => fs.stat(path.join(root, s.id, 'transcript.jsonl'))))).reduce((sum, s) => sum + s.size, 0);
    console.log(`seeded ${SESSIONS} sessions, ${(bytes / MB).toFixed(0)} MB of transcripts (in the page cache: just written)`);
    const search = new SessionSearch({ transcriptPath: (id) => path.join(root, id, 'transcript.jsonl') });
    const first = await timed(search, PHRASE, sessions);
    console.log(`search 1,000 sessions of 1 MB, first search: ${first.ms.toFixed(0)} ms (${describe(first.result)}; ${loadNote()})`);
    const again = await timed(search, PHRASE, sessions);
    console.log(`the same search repeated: ${again.ms.toFixed(0)} ms (${describe(again.result)}; ${(search.cachedChars / 1e6).toFixed(1)} M characters kept; ${loadNote()})`);
    const other = await timed(search, 'compiler FLAGS in session 7', sessions);
    console.log(`another query after them: ${other.ms.toFixed(0)} ms (${describe(other.result)}; ${loadNote()})`);
    const unbounded = new SessionSearch({ transcriptPath: (id) => path.join(root, id, 'transcript.jsonl'), limits: { budgetMs: 600_000 } });
    const whole = await timed(unbounded, PHRASE, sessions);
    console.log(`the first search without its time bound (to see the whole cost): ${whole.ms.toFixed(0)} ms (${describe(whole.result)}; ${loadNote()})`);
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
