// list_files and search_text done by the agent itself, for an ACP client that does not serve `_vigil/fs/*`: confined
// to the session's folder (a path, or a symlink on it, that leads out is refused), symlinks listed but never followed,
// only regular files read, walked as the host walks (src/shared/folderWalk.ts) within the same bounds.

import { constants, promises as fs, type Dirent } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { listFolder, searchFolder, type FolderReader, type OpenedFolder } from '../../shared/folderWalk';
import { collectMatches, type TextMatch } from '../../shared/textSearch';
import { clampCount, maxListEntries, maxSearchFileBytes, maxSearchResults } from '../../shared/workspaceLimits';
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

/** The folders under `place` as the shared walk reads them; `unreadableTop` is what an unreadable top folder throws, if anything. */
function folderReader(place: Place, unreadableTop?: () => never): FolderReader<OpenedFolder> {
  return {
    open: async (rel, top) => {
      const entries = await readFolder(place.rootReal, join(place.real, rel));
      if (!entries && top) unreadableTop?.();
      return entries && { entries, close: async () => {} };
    },
  };
}

/** Breadth-first, relative to the folder, folders suffixed with `/`, sorted per folder. */
export async function listLocal(cwd: string, requested: string, maxEntries: number): Promise<{ entries: string[]; truncated: boolean }> {
  const place = await locate(cwd, requested, 'list');
  if (!place.isFolder) throw new ToolError(`Cannot list ${requested}: it is a file, not a folder. Read it instead.`);
  return listFolder(
    folderReader(place, () => {
      throw new ToolError(`Cannot list ${requested}: the folder cannot be read.`);
    }),
    clampCount(maxEntries, maxListEntries),
  );
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
  const truncated = await searchFolder(
    folderReader(place),
    (_folder, _name, rel) => searchableText(join(place.real, rel)),
    (rel, text) => scan(join(place.real, rel), text),
  );
  return { matches, truncated };
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
