// The offline, deterministic demo model: shows what Vigil does (reads a file, starts a background
// build, ends its turn, and reports the result when the completion wakes it). Labelled as a demo.

import { promises as fs, watch } from 'node:fs';
import * as path from 'node:path';
import { wakeupPrefix } from '../../shared/agentProtocol/vigilMethods';
import type { ChatMessage, ModelEvent, ModelProvider, ModelRequest, ToolCallRequest } from './types';

export const demoLabel = 'Vigil demo model (offline, scripted — choose a real model in vigil.model.provider)';

export class DemoProvider implements ModelProvider {
  readonly label = 'demo';
  readonly offline = true;
  private calls = 0;
  private held = false;

  /** `holdFile` (tests only): the first answer pauses half-way until that file exists. */
  constructor(
    private readonly buildSeconds: number,
    private readonly holdFile?: string,
  ) {}

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const step = this.decide(request.messages);
    const words = splitForStreaming(step.text);
    const holdAt = this.holdFile && !this.held ? Math.ceil(words.length / 2) : -1;
    for (const [i, word] of words.entries()) {
      if (signal.aborted) throw signal.reason;
      if (i === holdAt && this.holdFile) {
        this.held = true;
        await untilFileExists(this.holdFile, signal);
      }
      yield { kind: 'text', text: word };
    }
    if (step.toolCall) {
      yield { kind: 'toolCall', call: { ...step.toolCall, id: `demo_${++this.calls}` } };
      yield { kind: 'end', reason: 'tool_calls' };
    } else {
      yield { kind: 'end', reason: 'stop' };
    }
  }

  private decide(messages: ChatMessage[]): { text: string; toolCall?: Omit<ToolCallRequest, 'id'> } {
    const lastUserIndex = findLastIndex(messages, (m) => m.role === 'user');
    const user = messages[lastUserIndex] as Extract<ChatMessage, { role: 'user' }> | undefined;
    const since = messages.slice(lastUserIndex + 1);
    const lastTool = [...since].reverse().find((m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool');
    if (user?.text.startsWith(wakeupPrefix)) return { text: reportWakeup(user.text) };
    const tourDone = messages.slice(0, lastUserIndex).some((m) => m.role === 'tool' && m.name === 'run_command');
    if (tourDone && !lastTool) {
      return { text: `(${demoLabel}.) The demo only plays its one tour; you said: "${(user?.text ?? '').slice(0, 200)}".` };
    }
    if (!lastTool) {
      return {
        text: `Hello — this is the ${demoLabel}. I'll show what Vigil does: look at your workspace, read a file, start a build in the background and end my turn; Vigil wakes me when the build finishes.\n\n`,
        toolCall: { name: 'list_files', arguments: JSON.stringify({ path: '.' }) },
      };
    }
    // A failed tool's result is `Error: …` (agentLoop): it is reported, never read as a listing or a file.
    if (lastTool.content.startsWith('Error:')) {
      return { text: `The ${lastTool.name} tool failed: ${lastTool.content.slice('Error:'.length).trim().slice(0, 300)}\n\nThe demo stops here. (${demoLabel}.)` };
    }
    switch (lastTool.name) {
      case 'list_files': {
        const file = pickFile(lastTool.content);
        if (file) return { text: `I'll read \`${file}\`.\n\n`, toolCall: { name: 'read_file', arguments: JSON.stringify({ path: file }) } };
        return { text: 'The workspace has no file to read; ', toolCall: this.buildCall() };
      }
      case 'read_file': {
        const lines = lastTool.content.split('\n');
        const first = lines.find((l) => l.trim() !== '')?.trim().slice(0, 120) ?? '(empty)';
        return { text: `It has ${lines.length} lines and starts with: “${first}”.\n\nNow a short build in the background.\n\n`, toolCall: this.buildCall() };
      }
      case 'run_command': {
        if (!lastTool.content.startsWith('Started background task')) {
          const last = lastTool.content.split('\n').map((l) => l.trim()).filter(Boolean).pop() ?? '(no output)';
          return { text: `The build ran in the foreground (this client has no background tasks) and ended with “${last}”. The demo is complete. (${demoLabel}.)` };
        }
        const id = /task (\S+?)[.\s]/.exec(lastTool.content)?.[1] ?? '(unknown)';
        return { text: `The build runs in the background as task ${id}. I'm ending my turn now and will continue when it finishes — Vigil will wake me with its result.` };
      }
      default:
        return { text: `(${demoLabel}.) The ${lastTool.name} tool answered; the demo has nothing more to do.` };
    }
  }

  private buildCall(): Omit<ToolCallRequest, 'id'> {
    const s = this.buildSeconds;
    const command =
      process.platform === 'win32'
        ? `echo demo build: compiling... & ping -n ${Math.max(1, Math.round(s) + 1)} 127.0.0.1 >NUL & echo demo build: 3 modules, 0 errors`
        : `echo "demo build: compiling..."; sleep ${s}; echo "demo build: 3 modules, 0 errors"`;
    return { name: 'run_command', arguments: JSON.stringify({ command, background: true }) };
  }
}

/** Resolves once `file` exists (watched, no polling), or rejects when the turn is aborted. */
async function untilFileExists(file: string, signal: AbortSignal): Promise<void> {
  const exists = () =>
    fs.access(file).then(
      () => true,
      () => false,
    );
  await new Promise<void>((resolve, reject) => {
    const watcher = watch(path.dirname(file), () => void check());
    const done = (error?: unknown) => {
      watcher.close();
      signal.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    };
    const onAbort = () => done(signal.reason);
    const check = async () => {
      if (await exists()) done();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    void check();
  });
}

function reportWakeup(prompt: string): string {
  const head = /Background task (\S+) completed \(([^)]*)\)/.exec(prompt);
  const id = head?.[1] ?? '(unknown)';
  const status = head?.[2] ?? 'status unknown';
  const lastLine = prompt.split('\n').map((l) => l.trim()).filter((l) => l && l !== ']' && !l.startsWith('[IMPORTANT') && !l.startsWith('Command:') && !l.startsWith('Output')).pop() ?? '(no output)';
  return `Vigil woke me: background task ${id} finished (${status}). Its output ends with “${lastLine.replace(/\]$/, '')}”. That was the build I started earlier, so the demo is complete. (${demoLabel}.)`;
}

function pickFile(listing: string): string | undefined {
  const files = listing.split('\n').map((l) => l.trim()).filter((l) => l && !l.endsWith('/') && !l.startsWith('('));
  const preferred = ['README.md', 'readme.md', 'package.json'];
  return files.find((f) => preferred.includes(f)) ?? files[0];
}

function splitForStreaming(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function findLastIndex<T>(items: T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i -= 1) if (test(items[i])) return i;
  return -1;
}
