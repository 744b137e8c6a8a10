// A window's view of where its sessions work: reads the recorded folder from the session store,
// checks it against this window's folders and the disk, and adopts a folder for sessions that
// predate folder records. The agent's cwd, the terminals' default cwd and wakeup delivery ask here.

import { promises as fs } from 'node:fs';
import { VigilError } from '../common/errors';
import type { Logger } from '../ports/logger';
import type { SessionMeta } from '../store/sessionStore';
import { canonicalFolder, mayRun, placeSession, placementProblem, sameFolder, type FolderPlacement } from './sessionFolder';

/** A placement after the disk was asked: a home folder that is gone is `missing`. */
export type CheckedPlacement = FolderPlacement | { kind: 'missing'; folder: string };

export interface SessionFoldersDeps {
  store: {
    get(id: string): Promise<SessionMeta | undefined>;
    update(id: string, patch: { folder: string }): Promise<SessionMeta>;
  };
  /** This window's workspace folders (absolute paths, the window's order), read at every decision. */
  windowFolders(): readonly string[];
  logger: Logger;
  platform?: NodeJS.Platform;
  /** File-system probes (tests replace them). */
  isDirectory?(p: string): Promise<boolean>;
  realpath?(p: string): Promise<string>;
}

export class SessionFolders {
  private readonly platform: NodeJS.Platform;
  /** Sessions whose wakeups this window leaves to others, already logged (once each, not every sweep). */
  private readonly leftAlone = new Set<string>();

  constructor(private readonly d: SessionFoldersDeps) {
    this.platform = d.platform ?? process.platform;
  }

  /** Where the session runs from this window, the disk consulted (throws NOT_FOUND for an unknown session). */
  async check(sessionId: string): Promise<CheckedPlacement> {
    const meta = await this.d.store.get(sessionId);
    if (!meta) throw new VigilError('NOT_FOUND', `Session ${sessionId} does not exist`);
    return this.checkMeta(meta);
  }

  async checkMeta(meta: Pick<SessionMeta, 'folder'>): Promise<CheckedPlacement> {
    const windowFolders = this.d.windowFolders();
    let placement = placeSession(meta.folder, windowFolders, this.platform);
    if (placement.kind === 'foreign') placement = await this.matchByRealPath(placement.folder, windowFolders);
    if (placement.kind === 'home' && !(await this.isDirectory(placement.folder))) return { kind: 'missing', folder: placement.folder };
    return placement;
  }

  /** What the person is told when this window must not run the session; undefined when it may. */
  async problemFor(meta: Pick<SessionMeta, 'folder'>): Promise<string | undefined> {
    return placementProblemChecked(await this.checkMeta(meta));
  }

  /** Rule: a window delivers a session's wakeups only where it could run the session's agent. */
  async mayDeliver(sessionId: string): Promise<boolean> {
    try {
      const placement = await this.check(sessionId);
      const may = mayRunChecked(placement);
      if (may) this.leftAlone.delete(sessionId);
      else if (!this.leftAlone.has(sessionId)) {
        this.leftAlone.add(sessionId);
        this.d.logger.info(`[folders] wakeups of session ${sessionId} are left for a window of its folder: ${placementProblemChecked(placement) ?? placement.kind}`);
      }
      return may;
    } catch (error) {
      this.d.logger.warn(`[folders] cannot place session ${sessionId}; its wakeups wait: ${(error as Error).message}`);
      return false;
    }
  }

  /**
   * The folder the session's agent and terminals work in, adopting this window's first folder for a
   * session that records none. Undefined for a folder-less session in a folder-less window (the
   * caller's fallback applies). Throws OUTSIDE_WORKSPACE / CORRUPT_RECORD with what to do otherwise.
   */
  async workFolder(sessionId: string): Promise<string | undefined> {
    let placement = await this.check(sessionId);
    if (placement.kind === 'adopt') placement = await this.adopt(sessionId, placement.folder);
    switch (placement.kind) {
      case 'home':
        return placement.folder;
      case 'folderless':
        return undefined;
      case 'damaged':
        throw new VigilError('CORRUPT_RECORD', placementProblemChecked(placement)!);
      default:
        throw new VigilError('OUTSIDE_WORKSPACE', placementProblemChecked(placement)!);
    }
  }

  /** Records `folder` for a session that had none; whoever stored one first wins, and the re-read says who. */
  private async adopt(sessionId: string, folder: string): Promise<CheckedPlacement> {
    const before = await this.d.store.get(sessionId);
    if (!before) throw new VigilError('NOT_FOUND', `Session ${sessionId} does not exist`);
    if (before.folder === undefined) {
      await this.d.store.update(sessionId, { folder });
      this.d.logger.info(`[folders] session ${sessionId} recorded no folder; it now belongs to ${folder}`);
    }
    const after = await this.d.store.get(sessionId);
    if (!after) throw new VigilError('NOT_FOUND', `Session ${sessionId} does not exist`);
    const placement = await this.checkMeta(after);
    // Another window adopted it at the same moment and kept it: this window must not run it.
    return placement.kind === 'adopt' ? { kind: 'damaged', reason: 'its folder could not be stored' } : placement;
  }

  /** A folder opened through a symbolic link (or the reverse) is still the same folder. */
  private async matchByRealPath(recorded: string, windowFolders: readonly string[]): Promise<FolderPlacement> {
    const real = await this.realpath(recorded);
    if (real !== undefined) {
      for (const folder of windowFolders) {
        const windowReal = await this.realpath(folder);
        if (windowReal !== undefined && sameFolder(real, windowReal, this.platform)) return { kind: 'home', folder: canonicalFolder(folder, this.platform) };
      }
    }
    return { kind: 'foreign', folder: recorded };
  }

  private async isDirectory(p: string): Promise<boolean> {
    if (this.d.isDirectory) return this.d.isDirectory(p);
    return fs.stat(p).then((s) => s.isDirectory(), () => false);
  }

  private async realpath(p: string): Promise<string | undefined> {
    try {
      return await (this.d.realpath ?? fs.realpath)(p);
    } catch {
      return undefined;
    }
  }
}

export function mayRunChecked(placement: CheckedPlacement): boolean {
  return placement.kind !== 'missing' && mayRun(placement);
}

/** What the person is told when this window cannot run the session; undefined when it can. */
export function placementProblemChecked(placement: CheckedPlacement): string | undefined {
  if (placement.kind === 'missing') {
    return `This session's folder ${placement.folder} does not exist any more (or is not a folder), so Vigil will not run its agent elsewhere. Restore the folder, or start a new session.`;
  }
  return placementProblem(placement);
}
