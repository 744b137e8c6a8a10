// What one turn changed in its folder, as its checkpoint trees say (for every agent, whatever tool wrote): each file
// once with what happened to it and its line counts, the first ones named and the count exact. Stored in the turn's
// checkpoint record and shown at the turn's end; turnChangesSchema.ts checks both (apart: no zod at activation).

export type TurnFileChange = 'added' | 'modified' | 'deleted';

export interface TurnFileView {
  /** Relative to the session's folder, '/'-separated, as git holds it (any byte a file name may have). */
  path: string;
  change: TurnFileChange;
  /** Lines added and removed; absent with `noDiff`. */
  added?: number;
  removed?: number;
  /** No line counts and no diff: binary content, or larger than what is compared. */
  noDiff?: 'binary' | 'tooLarge';
}

export interface TurnChangesView {
  /** The first files (in path order); `count` says how many there are in all. */
  files: TurnFileView[];
  count: number;
  /** Lines added and removed over every file that has counts. */
  added: number;
  removed: number;
}

export const turnChangesLimits = {
  /** Files a turn's record names. */
  namedFiles: 200,
  /**
   * Characters of all named paths together: with the named skipped files, one record stays below the transcript's
   * 1 MB record bound even at 3 bytes a character (a record over it would be stored cut, its names with it).
   */
  namedPathChars: 128 * 1024,
  pathChars: 4_096,
} as const;

/** "Changed 1 file", "Changed 3,000 files". */
export function changedFilesLabel(n: number): string {
  return `Changed ${n.toLocaleString('en-US')} ${n === 1 ? 'file' : 'files'}`;
}
