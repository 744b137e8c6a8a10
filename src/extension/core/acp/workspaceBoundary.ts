// Decides whether a path an agent names is inside the workspace: normalised against the workspace root, then walked
// component by component with lstat, following each symlink by hand so its target is judged too (never the kernel's
// silent resolution). What this returns is the object later opened and re-verified (boundaryOpen.ts).

import { promises as fs, realpathSync, type Stats } from 'node:fs';
import { isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import { VigilError } from '../common/errors';

/** Generous for real projects, small enough that a hostile path cannot make the walk expensive. */
export const maxPathChars = 4096;
/** The kernel's own limit for one name (NAME_MAX on Linux, macOS and NTFS). */
export const maxNameBytes = 255;
/** The kernel's symlink hop limit on Linux (MAXSYMLINKS). */
export const maxSymlinkHops = 40;

export type FileKind = 'file' | 'folder' | 'symlink' | 'fifo' | 'socket' | 'character device' | 'block device' | 'unknown';

export interface SymlinkHop {
  link: string;
  target: string;
}

/** Where an agent path leads, as seen by a walk that follows nothing blindly. */
export interface Location {
  /** The path as the agent gave it. */
  readonly requested: string;
  /** Normalised and absolute (against the workspace root), before any symlink. */
  readonly abs: string;
  /** Every symlink resolved by hand: the object that is read or written. */
  readonly real: string;
  /** The workspace root's real path at the time of the walk. */
  readonly rootReal: string;
  readonly inside: boolean;
  /** It is, or lies in, Vigil's own storage (markPrivateRoot): never inside, and never served even when approved. */
  readonly private: boolean;
  /** `missing` when the object does not exist (yet). */
  readonly kind: FileKind | 'missing';
  /** A symlink on the way points at nothing: such a path is outside whatever the target's folder. */
  readonly dangling: boolean;
  readonly hops: readonly SymlinkHop[];
  /** Set only by the caller once the person allowed this outside Location (WorkspaceFs.approved). */
  readonly approved?: true;
}

/** Lexical containment. `..env` inside the root is inside; only a whole `..` component leaves it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  if (rel === '') return true;
  if (isAbsolute(rel)) return false; // another drive on Windows
  return rel !== '..' && !rel.startsWith(`..${sep}`);
}

/**
 * Real paths of folders no agent may reach, for this whole process: Vigil's own storage (every session's transcript,
 * the shadow checkpoint repositories, task logs) is never part of an agent's workspace, whatever folder the window
 * has open — also when the workspace is, or contains, the storage folder.
 */
const privateRoots = new Set<string>();

/** Marks `folder` and everything below it as Vigil's own, by its resolved and its real spelling. */
export function markPrivateRoot(folder: string): void {
  privateRoots.add(resolve(folder));
  try {
    privateRoots.add(realpathSync(folder));
  } catch {
    // Not created yet: the resolved spelling stands.
  }
}

/** Whether `real` (a path with no symlinks left) is or lies in a private root. */
export function isPrivatePath(real: string): boolean {
  for (const root of privateRoots) if (isInside(root, real)) return true;
  return false;
}

/** Refuses what no file system call should ever see: non-strings, NUL bytes, absurd lengths. */
export function checkPathText(path: unknown): string {
  if (typeof path !== 'string' || path.length === 0) throw new VigilError('INVALID_INPUT', 'The path is empty: give an absolute path inside the workspace folder.');
  if (path.includes('\u0000')) throw new VigilError('INVALID_INPUT', 'The path contains a NUL byte, which no file name can hold: send the path without it.');
  if (path.length > maxPathChars) throw new VigilError('INVALID_INPUT', `The path is ${path.length} characters long; paths longer than ${maxPathChars} are refused. Use a shorter path.`);
  for (const name of path.split(/[\\/]/)) {
    if (Buffer.byteLength(name) > maxNameBytes) {
      throw new VigilError('INVALID_INPUT', `The path has a name of ${Buffer.byteLength(name)} bytes ("${name.slice(0, 40)}…"); file names are limited to ${maxNameBytes} bytes.`);
    }
  }
  return path;
}

export function kindOf(stat: Stats): FileKind {
  if (stat.isFile()) return 'file';
  if (stat.isDirectory()) return 'folder';
  if (stat.isSymbolicLink()) return 'symlink';
  if (stat.isFIFO()) return 'fifo';
  if (stat.isSocket()) return 'socket';
  if (stat.isCharacterDevice()) return 'character device';
  if (stat.isBlockDevice()) return 'block device';
  return 'unknown';
}

/** The workspace root's real path; a root that vanished is judged by its normalised path (everything is then missing). */
export async function realRoot(root: string): Promise<string> {
  return fs.realpath(resolve(root)).catch(() => resolve(root));
}

/** One path an agent names → its Location. Throws a clear INVALID_INPUT/NOT_FOUND error when the path cannot be walked. */
export async function locatePath(root: string, requested: string): Promise<Location> {
  checkPathText(requested);
  const rootAbs = resolve(root);
  const rootReal = await realRoot(root);
  const abs = resolve(rootAbs, requested);
  // Start from the root's real path when the agent names something under it (either spelling), else from the top.
  let start: string;
  let rest: string[];
  if (isInside(rootReal, abs)) [start, rest] = [rootReal, names(relative(rootReal, abs))];
  else if (isInside(rootAbs, abs)) [start, rest] = [rootReal, names(relative(rootAbs, abs))];
  else [start, rest] = [parse(abs).root, names(abs.slice(parse(abs).root.length))];
  const walked = await walk(start, rest, abs);
  const isPrivate = !walked.dangling && isPrivatePath(walked.real);
  const inside = !walked.dangling && !isPrivate && isInside(rootReal, walked.real);
  return { requested, abs, rootReal, inside, private: isPrivate, ...walked };
}

interface Step {
  name: string;
  /** True when the name came from a symlink's target rather than from the agent's own path. */
  fromLink: boolean;
}

async function walk(start: string, agentNames: string[], abs: string): Promise<Omit<Location, 'requested' | 'abs' | 'rootReal' | 'inside' | 'private'>> {
  const hops: SymlinkHop[] = [];
  const queue: Step[] = agentNames.map((name) => ({ name, fromLink: false }));
  let current = start;
  let kind: FileKind = 'folder';
  while (queue.length > 0) {
    const step = queue.shift()!;
    const next = join(current, step.name);
    let stat: Stats;
    try {
      stat = await fs.lstat(next);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        // Missing from here on. A name from a symlink's target means the link points at nothing: outside.
        // (Link names are queued before the agent's remaining names, so only this step's origin matters.)
        return { real: join(next, ...queue.map((s) => s.name)), kind: 'missing', dangling: step.fromLink, hops };
      }
      throw walkError(abs, next, error);
    }
    kind = kindOf(stat);
    if (kind === 'symlink') {
      if (hops.length >= maxSymlinkHops) throw new VigilError('INVALID_INPUT', `${abs} goes through more than ${maxSymlinkHops} symlinks (a loop?); name the file by its real path.`);
      const target = resolve(current, await fs.readlink(next).catch((e: unknown) => Promise.reject(changedError(abs, e))));
      hops.push({ link: next, target });
      // `current` holds no symlinks, so a lexical `..` in the target is the physical parent.
      const root = parse(target).root;
      queue.unshift(...names(target.slice(root.length)).map((name) => ({ name, fromLink: true })));
      current = root;
      continue;
    }
    if (queue.length > 0 && kind !== 'folder') {
      throw new VigilError('INVALID_INPUT', `Cannot use ${abs}: ${next} is a ${kind}, not a folder.`);
    }
    current = next;
  }
  return { real: current, kind, dangling: false, hops };
}

/** Splits on the platform's separators only: on Linux and macOS a backslash is part of a name, so `..\\x` cannot climb. */
const separators = sep === '\\' ? /[\\/]+/ : /\/+/;

function names(rel: string): string[] {
  return rel.split(separators).filter((n) => n !== '' && n !== '.');
}

function walkError(abs: string, at: string, error: unknown): VigilError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENAMETOOLONG' ? 'the path is too long' : code === 'ENOTDIR' ? 'a part of it is not a folder' : (error as Error).message;
  return new VigilError('INVALID_INPUT', `Cannot use ${abs}: ${reason} (at ${at}).`, { cause: error });
}

/** The object changed between two looks at it: nothing was used, and trying again is the remedy. */
export function changedError(abs: string, cause?: unknown): VigilError {
  return new VigilError('INVALID_INPUT', `${abs} changed while Vigil was opening it (a symlink or folder on the way was replaced); nothing was read or written. Try again.`, { cause });
}

/** How a Location reads in a question to the person: the resolved target is what matters. */
export function describeLocation(where: Location): string {
  if (where.hops.length === 0) return where.abs;
  const why = where.dangling ? 'a symlink to a missing file' : 'via a symlink';
  return `${where.abs} → ${where.real} (${why})`;
}
