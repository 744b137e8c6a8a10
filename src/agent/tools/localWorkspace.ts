// list_files and search_text done by the agent itself, for an ACP client that does not serve `_vigil/fs/*`: confined
// to the session's folder (a path, or a symlink on it, that leads out is refused), symlinks listed but never followed,
// only regular files read, and the same bounds as the host's (src/shared/workspaceLimits.ts).

import { constants, promises as fs, type Dirent } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { collectMatches, type TextMatch } from '../../shared/textSearch';
import { clampCount, maxListEntries, maxSearchFileBytes, maxSearchFiles, maxSearchResults, skippedDirs } from '../../shared/workspaceLimits';
import { ToolError } from './toolContext';

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

interface Place {
  rootReal: string;
  real: string;
  isFolder: boolean;
}

/** Where `requested` really leads (every symlink resolved), refused unless that is inside the session folder. */
async function locate(cwd: string, requested: string, action: string): Promise<Place> {
  if (requested.includes('\u0000')) throw new ToolError(`Cannot ${action} the path: it contains a NUL byte.`);
  const rootReal = await fs.realpath(cwd).catch((error: unknown) => {
    throw new ToolError(`Cannot ${action}: the session folder ${cwd} is not readable (${(error as Error).message}).`);
  });
  const abs = resolve(cwd, requested);
  const real = await fs.realpath(abs).catch((error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ToolError(code === 'ENOENT' ? `Cannot ${action} ${abs}: no such file or folder.` : `Cannot ${action} ${abs}: ${(error as Error).message}.`);
  });
  if (!isInside(rootReal, real)) {
    throw new ToolError(`Cannot ${action} ${abs}: it is outside the session folder ${cwd}${real !== abs ? ` (it leads to ${real})` : ''}.`);
  }
  const stat = await fs.stat(real);
  return { rootReal, real, isFolder: stat.isDirectory() };
}

/** A folder's entries, or undefined when it is no longer a folder inside the root (swapped for a symlink meanwhile). */
async function readFolder(rootReal: string, path: string): Promise<Dirent[] | undefined> {
  const real = await fs.realpath(path).catch(() => undefined);
  if (real === undefined || !isInside(rootReal, real) || real !== path) return undefined;
  return fs.readdir(path, { withFileTypes: true }).catch(() => undefined);
}

/** Breadth-first, relative to the folder, folders suffixed with `/`, sorted per folder. */
export async function listLocal(cwd: string, requested: string, maxEntries: number): Promise<{ entries: string[]; truncated: boolean }> {
  const place = await locate(cwd, requested, 'list');
  if (!place.isFolder) throw new ToolError(`Cannot list ${requested}: it is a file, not a folder. Read it instead.`);
  const cap = clampCount(maxEntries, maxListEntries);
  const entries: string[] = [];
  const queue = [''];
  while (queue.length > 0) {
    const rel = queue.shift()!;
    const items = await readFolder(place.rootReal, join(place.real, rel));
    if (!items) {
      if (rel === '') throw new ToolError(`Cannot list ${requested}: the folder cannot be read.`);
      continue;
    }
    items.sort((a, b) => a.name.localeCompare(b.name));
    for (const item of items) {
      const childRel = rel ? `${rel}/${item.name}` : item.name;
      if (item.isDirectory()) {
        entries.push(`${childRel}/`);
        if (!skippedDirs.has(item.name)) queue.push(childRel);
      } else {
        entries.push(childRel);
      }
      if (entries.length >= cap) return { entries, truncated: true };
    }
  }
  return { entries, truncated: false };
}

export type LocalMatch = TextMatch;

/** Literal search, line by line, in small regular text files only (never through a symlink, a FIFO or a device). */
export async function searchLocal(cwd: string, query: string, requested: string, maxResults: number): Promise<{ matches: LocalMatch[]; truncated: boolean }> {
  const place = await locate(cwd, requested, 'search');
  const cap = clampCount(maxResults, maxSearchResults);
  const matches: LocalMatch[] = [];
  const scan = (real: string, text: string): boolean => collectMatches(matches, relative(place.rootReal, real).split(sep).join('/'), text, query, cap);
  if (!place.isFolder) {
    const text = await searchableText(place.real);
    return { matches, truncated: text !== undefined && scan(place.real, text) };
  }
  let scanned = 0;
  const stack = [place.real];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    const items = await readFolder(place.rootReal, dir);
    if (!items) continue;
    for (const item of items) {
      const full = join(dir, item.name);
      if (item.isDirectory()) {
        if (!skippedDirs.has(item.name)) stack.push(full);
        continue;
      }
      if (!item.isFile()) continue;
      if (++scanned > maxSearchFiles) return { matches, truncated: true };
      const text = await searchableText(full);
      if (text !== undefined && scan(full, text)) return { matches, truncated: true };
    }
  }
  return { matches, truncated: false };
}

/** The file's text when it is a small regular text file; opened without following a symlink and without blocking. */
async function searchableText(path: string): Promise<string | undefined> {
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  const handle = await fs.open(path, flags).catch(() => undefined);
  if (!handle) return undefined;
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > maxSearchFileBytes) return undefined;
    const buffer = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, bytesRead);
    return bytes.includes(0) ? undefined : bytes.toString('utf8');
  } catch {
    return undefined; // unreadable mid-search: skipped like a binary file
  } finally {
    await handle.close();
  }
}
