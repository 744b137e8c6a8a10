// Serves the agent's file access (ACP fs/* and `_vigil/fs/*`) confined to the workspace folder: every path is located
// by workspaceBoundary.ts, and only what was located is opened (boundaryOpen.ts), read (lineRangeReader.ts) or
// replaced (boundaryWrite.ts). A Location outside the workspace is served only once the caller marked it approved.

import type { Dirent } from 'node:fs';
import { promises as fs } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { VigilError } from '../common/errors';
import { notRegularError, openError, openFileVerified, VerifiedDir } from './boundaryOpen';
import { writeVerified } from './boundaryWrite';
import { readRange } from './lineRangeReader';
import { describeLocation, isPrivatePath, locatePath, type Location } from './workspaceBoundary';
import { listFolder, searchFolder, type FolderReader, type OpenedFolder } from '../../../shared/folderWalk';
import { collectMatches, type TextMatch } from '../../../shared/textSearch';
import { clampCount as clamp, maxListEntries, maxSearchFileBytes, maxSearchResults } from '../../../shared/workspaceLimits';

export { isInside as isWithin } from './workspaceBoundary';
export type { Location } from './workspaceBoundary';


type Access = 'read' | 'write' | 'list' | 'search';

export class WorkspaceFs {
  constructor(readonly root: string) {}

  /**
   * Where a path the agent gave leads (relative paths are taken against the workspace root). `inside` is false when
   * it, or a symlink on the way, leaves the workspace or points at nothing; `real` is then what the person must see.
   */
  async locate(path: string): Promise<Location> {
    return locatePath(this.root, path);
  }

  /** The same Location, marked as allowed by the person although it is outside. */
  approved(where: Location): Location {
    return { ...where, approved: true };
  }

  /** "Is this folder inside the workspace?" for other callers (e.g. a terminal's cwd): located without following anything. */
  async isInsideFolder(path: string): Promise<{ inside: boolean; where: Location }> {
    const where = await this.locate(path);
    return { inside: where.inside && where.kind === 'folder', where };
  }

  async read(where: Location, line?: number | null, limit?: number | null, signal?: AbortSignal): Promise<string> {
    this.guard(where, 'read');
    if (where.kind === 'missing') throw new VigilError('NOT_FOUND', `Cannot read ${where.abs}: no such file or folder.`);
    // Refused before any open: opening a FIFO or a device can block or have side effects.
    if (where.kind !== 'file') throw notRegularError(where.abs, where.kind, 'read');
    const { handle, stat } = await openFileVerified(where.real, where.real, where.abs, 'read');
    try {
      return await readRange(handle, stat.size, { line, limit }, where.abs, signal);
    } finally {
      await handle.close();
    }
  }

  async write(where: Location, content: string): Promise<void> {
    this.guard(where, 'write');
    await writeVerified(where, content);
  }

  /** Breadth-first listing relative to the folder, folders suffixed with `/`, symlinks listed but never followed. */
  async list(where: Location, maxEntries = 500): Promise<{ entries: string[]; truncated: boolean }> {
    this.guard(where, 'list');
    this.needFolder(where, 'list');
    return listFolder(this.folderReader(where, 'list'), clamp(maxEntries, maxListEntries));
  }

  /** Literal text search, line by line, in regular files only (never a FIFO, device or symlink), skipping big and binary ones. */
  async search(where: Location, query: string, maxResults = 200): Promise<{ matches: Array<{ path: string; line: number; text: string }>; truncated: boolean }> {
    this.guard(where, 'search');
    const cap = clamp(maxResults, maxSearchResults);
    const matches: TextMatch[] = [];
    const found = (real: string, text: string): boolean => collectMatches(matches, relative(where.rootReal, real).split(sep).join('/'), text, query, cap);
    if (where.kind === 'file') {
      const text = await this.searchable(where.real, where.real, where.abs);
      return { matches, truncated: text !== undefined && found(where.real, text) };
    }
    this.needFolder(where, 'search');
    const truncated = await searchFolder(
      this.folderReader(where, 'search'),
      (folder, name, rel) => {
        const full = join(where.real, rel);
        return this.searchable(folder.dir.child(name), full, full);
      },
      (rel, text) => found(join(where.real, rel), text),
    );
    return { matches, truncated };
  }

  /** A file's text for search, or undefined when it is not a small regular text file (skipped like a binary one). */
  private async searchable(via: string, real: string, abs: string): Promise<string | undefined> {
    const opened = await openFileVerified(via, real, abs, 'search').catch(skip);
    if (!opened) return undefined;
    try {
      if (opened.stat.size > maxSearchFileBytes) return undefined;
      const buffer = Buffer.alloc(opened.stat.size);
      const { bytesRead } = await opened.handle.read(buffer, 0, buffer.length, 0);
      if (buffer.subarray(0, bytesRead).includes(0)) return undefined;
      return buffer.toString('utf8', 0, bytesRead);
    } catch {
      return undefined; // unreadable mid-search: skipped, the rest is still searched
    } finally {
      await opened.handle.close();
    }
  }

  /**
   * The folders under `where` for the shared walk, each held by a verified descriptor until closed; Vigil's own storage
   * inside the workspace is neither listed nor entered. An unreadable or swapped subfolder is passed over, so it does
   * not spoil the rest; the top one's error is the caller's.
   */
  private folderReader(where: Location, action: Access): FolderReader<OpenedFolder & { dir: VerifiedDir }> {
    return {
      open: async (rel, top) => {
        let dir: VerifiedDir;
        try {
          dir = await VerifiedDir.open(join(where.real, rel), where.abs, action);
        } catch (error) {
          if (top) throw error;
          return undefined;
        }
        let entries: Dirent[];
        try {
          entries = await fs.readdir(dir.path, { withFileTypes: true });
        } catch (error) {
          await dir.close();
          if (top) throw openError(action, where.abs, error);
          return undefined;
        }
        return { entries, dir, close: () => dir.close() };
      },
      hidden: (rel) => isPrivatePath(join(where.real, rel)),
    };
  }

  private guard(where: Location, action: Access): void {
    if (where.private) throw privateError(where, action);
    if (where.inside || where.approved) return;
    throw new VigilError('OUTSIDE_WORKSPACE', `Cannot ${action} ${describeLocation(where)}: it is outside the workspace folder and was not approved.`);
  }

  private needFolder(where: Location, action: Access): void {
    if (where.kind === 'missing') throw new VigilError('NOT_FOUND', `Cannot ${action} ${where.abs}: no such file or folder.`);
    if (where.kind !== 'folder') throw new VigilError('INVALID_INPUT', `Cannot ${action} ${where.abs}: it is a ${where.kind}, not a folder.${where.kind === 'file' ? ' Read it instead.' : ''}`);
  }
}

/** Vigil's own storage is refused outright, never put to the person: no agent needs another session's transcript. */
export function privateError(where: Location, action: string): VigilError {
  return new VigilError('OUTSIDE_WORKSPACE', `Cannot ${action} ${describeLocation(where)}: it is in Vigil's own storage (sessions, transcripts, checkpoints), which no agent may use. Work inside the workspace folder.`);
}

function skip(): undefined {
  return undefined;
}
