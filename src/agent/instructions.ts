// The folder's instruction files (AGENTS.md, CLAUDE.md, .github/copilot-instructions.md) for the system prompt.
// A repository is hostile until read: only regular files inside the folder are read (a symlink, on the file or
// on `.github`, is skipped, so is a FIFO or a device, which could block the read forever), at most
// `maxFileBytes` of each and `maxTotalBytes` in all, and text only. The log says what was read or skipped.

import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { log } from './log';

/** Where the instruction files are looked for, relative to the session folder, in this order. */
export const instructionFiles = ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md'] as const;
export const maxFileBytes = 32 * 1024;
export const maxTotalBytes = 64 * 1024;

export interface InstructionFile {
  /** Relative to the folder, with `/`. */
  name: string;
  text: string;
  /** The file was longer than what was kept. */
  cut: boolean;
}

// O_NOFOLLOW refuses a symlink as the last component; O_NONBLOCK keeps a FIFO from blocking the open. Both are
// 0 where the platform has none (Windows), where the lstat checks below stand alone.
const openFlags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** The instruction files of `cwd` that can be read safely, in `instructionFiles` order. Never throws. */
export async function readInstructions(cwd: string): Promise<InstructionFile[]> {
  const root = await fs.realpath(cwd).catch(() => undefined);
  if (root === undefined) return [];
  const found: InstructionFile[] = [];
  let budget = maxTotalBytes;
  for (const name of instructionFiles) {
    if (budget <= 0) {
      log('info', `instructions: ${name} not read: the instruction files already fill ${maxTotalBytes} bytes`);
      continue;
    }
    const result = await readOne(root, name, Math.min(maxFileBytes, budget));
    if (result === undefined) continue;
    if (typeof result === 'string') {
      log('info', `instructions: ${name} skipped: ${result}`);
      continue;
    }
    budget -= Buffer.byteLength(result.text);
    log('info', `instructions: read ${name} (${Buffer.byteLength(result.text)} bytes${result.cut ? ', cut' : ''})`);
    found.push(result);
  }
  return found;
}

/** The file, `undefined` when there is none, or why it was skipped. */
async function readOne(root: string, name: string, limit: number): Promise<InstructionFile | string | undefined> {
  const file = path.join(root, ...name.split('/'));
  const dir = path.dirname(file);
  // The folder holding the file must be itself, not a link to somewhere else (`.github` -> /etc).
  const dirReal = await fs.realpath(dir).catch(() => undefined);
  if (dirReal === undefined) return undefined;
  if (dirReal !== dir) return 'its folder is a link';
  const info = await fs.lstat(file).catch(() => undefined);
  if (info === undefined) return undefined;
  if (info.isSymbolicLink()) return 'it is a link';
  if (!info.isFile()) return 'it is not a regular file';
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, openFlags);
    const stat = await handle.stat();
    // Checked again on what was opened: the path may have been swapped since the lstat.
    if (!stat.isFile() || stat.ino !== info.ino || stat.dev !== info.dev) return 'it changed while it was opened';
    const buffer = Buffer.alloc(Math.min(limit, stat.size) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, Math.min(bytesRead, limit));
    if (bytes.includes(0)) return 'it is not text (it holds a NUL byte)';
    // A cut may split a UTF-8 sequence: the decoder's replacement character marks it, and the note says it was cut.
    const cut = bytesRead > limit || stat.size > limit;
    const text = bytes.toString('utf8').trim();
    return text === '' ? 'it is empty' : { name, text, cut };
  } catch (error) {
    return `it cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** The system prompt's part for the instruction files: each one named, its text fenced off from Vigil's own. */
export function instructionsPrompt(files: readonly InstructionFile[]): string {
  if (files.length === 0) return '';
  const parts = files.map((f) => `--- ${f.name}${f.cut ? ` (first ${maxFileBytes} bytes)` : ''} ---\n${f.text}\n--- end of ${f.name} ---`);
  return `\n\nThe workspace folder has instructions for agents. Follow them where they do not conflict with the above:\n${parts.join('\n')}`;
}

/** The transcript's note naming what the model was given. */
export function instructionsNote(files: readonly InstructionFile[]): string {
  const names = files.map((f) => `\`${f.name}\`${f.cut ? ' (cut)' : ''}`).join(', ');
  return `*Following the folder's instructions from ${names}.*\n\n`;
}
