// Serves the agent's file access (ACP fs/* and `_vigil/fs/*`) confined to the workspace folder:
// symlinks are resolved before the check, and a path outside needs the person's approval.

import { promises as fs } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { VigilError } from '../common/errors';

const skippedDirs = new Set(['.git', 'node_modules', '.vscode-test', 'out', 'dist']);
const maxSearchFileBytes = 1_000_000;

export class WorkspaceFs {
  constructor(readonly root: string) {}

  /** Resolves a path as the agent gave it; `inside` is false when it (or its symlink target) leaves the workspace. */
  async locate(path: string): Promise<{ abs: string; inside: boolean }> {
    if (!isAbsolute(path)) throw new VigilError('INVALID_INPUT', `ACP file paths must be absolute, got "${path}"`);
    const abs = resolve(path);
    const real = await realpathOfExistingPrefix(abs);
    const root = await fs.realpath(this.root).catch(() => resolve(this.root));
    return { abs, inside: isWithin(root, real) };
  }

  async read(abs: string, line?: number | null, limit?: number | null): Promise<string> {
    let text: string;
    try {
      text = await fs.readFile(abs, 'utf8');
    } catch (error) {
      throw fileError('read', abs, error);
    }
    if (!line && !limit) return text;
    const lines = text.split('\n');
    const start = Math.max(0, (line ?? 1) - 1);
    return lines.slice(start, limit ? start + limit : undefined).join('\n');
  }

  async write(abs: string, content: string): Promise<void> {
    try {
      await fs.mkdir(dirname(abs), { recursive: true });
      await fs.writeFile(abs, content, 'utf8');
    } catch (error) {
      throw fileError('write', abs, error);
    }
  }

  /** Breadth-first listing relative to `abs`, folders suffixed with `/`, bounded. */
  async list(abs: string, maxEntries = 500): Promise<{ entries: string[]; truncated: boolean }> {
    const entries: string[] = [];
    const queue = [abs];
    while (queue.length > 0) {
      const dir = queue.shift()!;
      let items;
      try {
        items = await fs.readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (dir === abs) throw fileError('list', abs, error);
        continue; // an unreadable subfolder does not spoil the listing of the rest
      }
      items.sort((a, b) => a.name.localeCompare(b.name));
      for (const item of items) {
        const rel = relative(abs, join(dir, item.name)).split(sep).join('/');
        if (item.isDirectory()) {
          entries.push(`${rel}/`);
          if (!skippedDirs.has(item.name)) queue.push(join(dir, item.name));
        } else {
          entries.push(rel);
        }
        if (entries.length >= maxEntries) return { entries, truncated: true };
      }
    }
    return { entries, truncated: false };
  }

  /** Literal text search, line by line, skipping big and binary files. */
  async search(abs: string, query: string, maxResults = 200): Promise<{ matches: Array<{ path: string; line: number; text: string }>; truncated: boolean }> {
    const matches: Array<{ path: string; line: number; text: string }> = [];
    const stack = [abs];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      let items;
      try {
        items = await fs.readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (dir === abs) throw fileError('search', abs, error);
        continue; // unreadable subfolder: search the rest
      }
      for (const item of items) {
        const full = join(dir, item.name);
        if (item.isDirectory()) {
          if (!skippedDirs.has(item.name)) stack.push(full);
          continue;
        }
        if (!item.isFile()) continue;
        // A file that vanished or cannot be read mid-search is skipped, like a binary one.
        const stat = await fs.stat(full).catch(skipFile);
        if (!stat || stat.size > maxSearchFileBytes) continue;
        const text = (await fs.readFile(full, 'utf8').catch(skipFile)) ?? '';
        if (text.includes('\u0000')) continue;
        const lines = text.split('\n');
        for (let i = 0; i < lines.length; i += 1) {
          if (!lines[i].includes(query)) continue;
          matches.push({ path: relative(this.root, full).split(sep).join('/'), line: i + 1, text: lines[i].trim().slice(0, 300) });
          if (matches.length >= maxResults) return { matches, truncated: true };
        }
      }
    }
    return { matches, truncated: false };
  }
}

function skipFile(): undefined {
  return undefined;
}

export function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** realpath of the longest existing prefix, so a new file under a symlinked folder is judged by the link's target. */
async function realpathOfExistingPrefix(abs: string): Promise<string> {
  let current = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = await fs.realpath(current);
      return rest.length ? join(real, ...rest.reverse()) : real;
    } catch {
      const parent = dirname(current);
      if (parent === current) return abs;
      rest.push(current.slice(parent.length).replace(/^[\\/]/, ''));
      current = parent;
    }
  }
}

function fileError(action: string, path: string, error: unknown): VigilError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'ENOENT' ? 'no such file or folder' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
  return new VigilError(code === 'ENOENT' ? 'NOT_FOUND' : 'INVALID_INPUT', `Cannot ${action} ${path}: ${reason}`, { cause: error });
}
