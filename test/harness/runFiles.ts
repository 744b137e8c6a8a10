// What a UI test reads and writes inside a code-server run folder: Vigil's storage, its log
// channel's files, the demo model's script, and the processes the run started.

import { promises as fs, readdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CodeServer } from './codeServer';

/** Vigil's globalStorage folder in this run (sessions/, tasks/, wakeups/). */
export function vigilStorage(server: CodeServer): string {
  return path.join(server.runDir, 'user-data', 'User', 'globalStorage', 'vigil.vigil');
}

/** Every Vigil log file of the run (one per extension host: a window reload starts another). */
export function vigilLogFiles(server: CodeServer): string[] {
  const logs = path.join(server.runDir, 'user-data', 'logs');
  if (!existsSync(logs)) return [];
  const files: string[] = [];
  for (const session of readdirSync(logs)) {
    const sessionDir = path.join(logs, session);
    for (const host of safeReaddir(sessionDir)) {
      const dir = path.join(sessionDir, host, 'vigil.vigil');
      for (const file of safeReaddir(dir)) if (file.endsWith('.log')) files.push(path.join(dir, file));
    }
  }
  return files.sort();
}

export function vigilLog(server: CodeServer): string {
  return vigilLogFiles(server)
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
}

/** Polls the Vigil log until `count` lines match (the log channel flushes to its file shortly after). */
export async function waitForLogLines(server: CodeServer, pattern: RegExp, count: number, timeoutMs = 60_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = vigilLog(server).split('\n').filter((l) => pattern.test(l));
    if (lines.length >= count) return lines;
    if (Date.now() > deadline) throw new Error(`the Vigil log has ${lines.length} of ${count} lines matching ${pattern}:\n${vigilLog(server).slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** One response of the demo provider's script mode (src/agent/providers/scriptProvider.ts). */
export interface ScriptedResponse {
  chunks?: string[];
  text?: string;
  thought?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> | string }[];
  hangAfterChunks?: number;
  delayMs?: number;
}

/** Writes the script a session's agent reads when it starts (each new agent process reads it from the top). */
export function writeModelScript(file: string, responses: ScriptedResponse[]): void {
  writeFileSync(file, JSON.stringify({ responses }, null, 2));
}

/** Pids of this run's processes (they carry the run's marker) whose command line matches. */
export async function runProcesses(server: CodeServer, commandLine: RegExp): Promise<number[]> {
  const marker = `VIGIL_TEST_RUN_ID=${path.basename(server.runDir)}`;
  const pids: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = await fs.readFile(`/proc/${entry}/environ`, 'latin1');
      if (!environ.split('\0').includes(marker)) continue;
      const cmdline = (await fs.readFile(`/proc/${entry}/cmdline`, 'utf8')).split('\0').join(' ');
      const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8');
      // A zombie has ended; only its parent has not reaped it yet.
      if (/^\d+ \(.*\) Z/.test(stat)) continue;
      if (commandLine.test(cmdline)) pids.push(Number(entry));
    } catch {
      continue; // Ended meanwhile.
    }
  }
  return pids;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
