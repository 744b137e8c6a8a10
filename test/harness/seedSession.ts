// Writes a finished session straight into Vigil's storage, as the store itself would have left it:
// session.json plus a transcript.jsonl of valid records (src/extension/core/store/transcriptRecords.ts).

import { mkdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';

export interface SeededSession {
  id: string;
  title: string;
  messages: number;
  /** The text of the last message, which the tail must show. */
  lastText: string;
}

/**
 * `messages` alternate between a person's prompt and the agent's markdown answer. Only message
 * records are written, so the view (which folds the last 10,000 records) shows every one of them.
 */
export function seedLongSession(storageRoot: string, title: string, messages: number): SeededSession {
  const id = randomUUID();
  const dir = path.join(storageRoot, 'sessions', id);
  mkdirSync(dir, { recursive: true });
  const start = Date.now() - messages * 1_000;
  const lines: string[] = [];
  let lastText = '';
  for (let i = 0; i < messages; i += 1) {
    const at = start + i * 1_000;
    const n = Math.floor(i / 2) + 1;
    if (i % 2 === 0) {
      lastText = `Question ${n}: what does step ${n} of the build do?`;
      lines.push(JSON.stringify({ type: 'userPrompt', at, text: lastText, source: 'user' }));
    } else {
      lastText = `Answer ${n}: step ${n} compiles module ${n}.`;
      const markdown = `${lastText}\n\n- it reads **src/module-${n}.ts**\n- it writes \`out/module-${n}.js\`\n\n\`\`\`ts\nexport const step${n} = ${n};\n\`\`\`\n`;
      lines.push(JSON.stringify({ type: 'agentUpdate', at, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: markdown } } }));
    }
  }
  writeFileSync(path.join(dir, 'transcript.jsonl'), `${lines.join('\n')}\n`);
  const now = Date.now();
  writeFileSync(path.join(dir, 'session.json'), JSON.stringify({ id, title, createdAt: start, updatedAt: now, state: 'idle' }));
  return { id, title, messages, lastText };
}
