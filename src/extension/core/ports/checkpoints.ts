// What the turn supervisor asks of checkpoints: a snapshot before the turn and one after it. Never throws:
// a checkpoint that cannot be taken says why, and the turn runs all the same.

import type { TurnChangesView } from '../../../shared/turnChanges';

/** The `checkpoint` transcript record of a turn, less its type, turn id and time. */
export interface CheckpointFields {
  folder?: string;
  /** Git tree ids of the folder before and after the turn. */
  before?: string;
  after?: string;
  /** Files left out (too large, not a file): the first few named, and how many in all. */
  skipped?: { path: string; bytes?: number }[];
  skippedCount?: number;
  /** The files the turn changed, from the two trees (absent when it changed none, or they could not be listed). */
  changes?: TurnChangesView;
  /** Why there is no checkpoint (or only part of one). */
  unavailable?: string;
}

export interface TurnCheckpoint {
  /** The snapshot after the turn, and the record of both. */
  finish(): Promise<CheckpointFields>;
}

export interface CheckpointPort {
  /** At once, before the prompt is sent: the snapshot is kept, not taken, so the turn never waits for it. */
  begin(sessionId: string, turnId: string): TurnCheckpoint;
}
