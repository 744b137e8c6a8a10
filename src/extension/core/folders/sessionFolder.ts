// The folder rules of a session, pure: where a session works, whether a window may run it, and
// which folder a new session gets. A recorded folder is a hint read from disk, never a command:
// an agent only ever runs in a folder that the delivering window itself has open.

import { folderRecordProblem, pathFor, trimSeparators } from '../store/folderRecord';

/**
 * Where a session runs as seen from one window:
 * - `home`: its recorded folder is one of this window's folders (`folder` is the window's spelling of it);
 * - `adopt`: it records no folder (made before folders were recorded): it takes this window's first folder;
 * - `folderless`: it records no folder and this window has none either (runs as before, without a folder);
 * - `foreign`: it belongs to a folder this window does not have open;
 * - `damaged`: the recorded value is not an absolute, normalised path.
 */
export type FolderPlacement =
  | { kind: 'home'; folder: string }
  | { kind: 'adopt'; folder: string }
  | { kind: 'folderless' }
  | { kind: 'foreign'; folder: string }
  | { kind: 'damaged'; reason: string };

/** A window folder's path in the form a session records: normalised, no trailing separator. */
export function canonicalFolder(folder: string, platform: NodeJS.Platform = process.platform): string {
  const p = pathFor(platform);
  return trimSeparators(p.normalize(p.resolve(folder)), p);
}

/** Same folder by spelling (case-insensitive where the platform's file system usually is). */
export function sameFolder(a: string, b: string, platform: NodeJS.Platform = process.platform): boolean {
  const ca = canonicalFolder(a, platform);
  const cb = canonicalFolder(b, platform);
  return platform === 'win32' ? ca.toLowerCase() === cb.toLowerCase() : ca === cb;
}

/**
 * Where `recorded` (the session's stored folder; undefined when it has none) runs in a window
 * whose workspace folders are `windowFolders` (in the window's order).
 */
export function placeSession(recorded: string | undefined, windowFolders: readonly string[], platform: NodeJS.Platform = process.platform): FolderPlacement {
  if (recorded === undefined) return windowFolders.length > 0 ? { kind: 'adopt', folder: canonicalFolder(windowFolders[0], platform) } : { kind: 'folderless' };
  const problem = folderRecordProblem(recorded, platform);
  if (problem) return { kind: 'damaged', reason: problem };
  const match = windowFolders.find((f) => sameFolder(f, recorded, platform));
  return match !== undefined ? { kind: 'home', folder: canonicalFolder(match, platform) } : { kind: 'foreign', folder: recorded };
}

/** Whether this window may run turns and deliver wakeups of a session so placed. */
export function mayRun(placement: FolderPlacement): boolean {
  return placement.kind === 'home' || placement.kind === 'adopt' || placement.kind === 'folderless';
}

/**
 * The folder a new session belongs to: the window folder holding the active editor's file (the
 * deepest, for nested folders of a multi-root workspace), else the window's first folder; none in
 * a window without folders.
 */
export function folderForNewSession(windowFolders: readonly string[], activeFile: string | undefined, platform: NodeJS.Platform = process.platform): string | undefined {
  if (windowFolders.length === 0) return undefined;
  if (activeFile !== undefined) {
    const holding = windowFolders
      .map((f) => canonicalFolder(f, platform))
      .filter((f) => isInside(f, activeFile, platform))
      .sort((a, b) => b.length - a.length);
    if (holding.length > 0) return holding[0];
  }
  return canonicalFolder(windowFolders[0], platform);
}

/** Whether `file` is `folder` itself or below it. */
export function isInside(folder: string, file: string, platform: NodeJS.Platform = process.platform): boolean {
  const p = pathFor(platform);
  const rel = p.relative(canonicalFolder(folder, platform), canonicalFolder(file, platform));
  return rel === '' || (!rel.startsWith('..') && !p.isAbsolute(rel));
}

/** A short display name of a recorded folder (its last segment), for lists and notices. */
export function folderName(folder: string, platform: NodeJS.Platform = process.platform): string {
  const p = pathFor(platform);
  return p.basename(folder) || folder;
}

/** What the person is told when a window cannot run a session so placed; undefined when it can. */
export function placementProblem(placement: FolderPlacement): string | undefined {
  switch (placement.kind) {
    case 'foreign':
      return `This session belongs to the folder "${folderName(placement.folder)}" (${placement.folder}), which this window does not have open. Open that folder in a window to continue it; its background results wait for that window.`;
    case 'damaged':
      return `This session's stored folder is damaged (${placement.reason}), so Vigil will not run its agent anywhere. Fix or remove the "folder" field of its session.json, then try again.`;
    default:
      return undefined;
  }
}
