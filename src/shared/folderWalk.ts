// The two walks of a folder that the host's `_vigil/fs/list` and `_vigil/fs/search` (core/acp/workspaceFs.ts) and the
// built-in agent's own list_files and search_text (agent/tools/localWorkspace.ts) share: which folders are entered,
// in which order, and where the bounds of workspaceLimits.ts stop them. How a folder is opened safely is each side's
// own (the host holds it by a verified descriptor and hides its own storage; the agent checks its real path), so it
// comes in as a FolderReader. Paths here are relative to the walk's root, joined with `/`.

import { maxSearchFiles, skippedDirs } from './workspaceLimits';

/** What the walk needs of an entry (node's Dirent has it). */
export interface FolderEntry {
  name: string;
  isDirectory(): boolean;
  isFile(): boolean;
}

/** A folder the reader opened: its entries, and whatever it holds open until `close` (for reading files in it). */
export interface OpenedFolder {
  entries: FolderEntry[];
  close(): Promise<void>;
}

export interface FolderReader<F extends OpenedFolder> {
  /**
   * The folder at `rel` ('' is the walk's root, `top`); undefined to pass over it (swapped, vanished, unreadable).
   * It may throw for the top one: that is the walk's error.
   */
  open(rel: string, top: boolean): Promise<F | undefined>;
  /** True for a folder that is neither listed nor entered (the host's own storage). */
  hidden?(rel: string): boolean;
}

const childOf = (rel: string, name: string) => (rel ? `${rel}/${name}` : name);

/** Breadth-first, each folder's entries sorted by name, folders suffixed with `/`; folders in skippedDirs are listed, not entered. */
export async function listFolder<F extends OpenedFolder>(reader: FolderReader<F>, cap: number): Promise<{ entries: string[]; truncated: boolean }> {
  const entries: string[] = [];
  const queue = [''];
  while (queue.length > 0) {
    const rel = queue.shift()!;
    const folder = await reader.open(rel, rel === '');
    if (!folder) continue;
    await folder.close();
    const items = [...folder.entries].sort((a, b) => a.name.localeCompare(b.name));
    for (const item of items) {
      const childRel = childOf(rel, item.name);
      if (item.isDirectory()) {
        if (reader.hidden?.(childRel)) continue;
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

/**
 * Depth-first over the regular files (never a symlink, FIFO or device entry), at most maxSearchFiles of them: `text`
 * reads one while its folder is open (undefined skips it), `found` takes its text and says whether the matches are
 * full. True when the walk stopped early (matches full, or too many files).
 */
export async function searchFolder<F extends OpenedFolder>(
  reader: FolderReader<F>,
  text: (folder: F, name: string, rel: string) => Promise<string | undefined>,
  found: (rel: string, text: string) => boolean,
): Promise<boolean> {
  let scanned = 0;
  const stack = [''];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    const folder = await reader.open(rel, rel === '');
    if (!folder) continue;
    try {
      for (const item of folder.entries) {
        const childRel = childOf(rel, item.name);
        if (item.isDirectory()) {
          if (!skippedDirs.has(item.name) && !reader.hidden?.(childRel)) stack.push(childRel);
          continue;
        }
        if (!item.isFile()) continue;
        if (++scanned > maxSearchFiles) return true;
        const content = await text(folder, item.name, childRel);
        if (content !== undefined && found(childRel, content)) return true;
      }
    } finally {
      await folder.close();
    }
  }
  return false;
}
