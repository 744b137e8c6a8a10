// Where a session's files live under the storage root; one place so lease and store agree.

import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { VigilError } from '../common/errors';

const SESSION_ID = /^[A-Za-z0-9_-]{1,80}$/;

/** Rejects ids that could escape the sessions folder (`..`, separators) before any path is built. */
export function checkSessionId(sessionId: string): void {
  if (!SESSION_ID.test(sessionId)) {
    throw new VigilError('INVALID_INPUT', `Invalid session id ${JSON.stringify(sessionId).slice(0, 100)}`);
  }
}

export function sessionsDir(root: string): string {
  return path.join(root, 'sessions');
}

export function sessionDir(root: string, sessionId: string): string {
  checkSessionId(sessionId);
  return path.join(sessionsDir(root), sessionId);
}

export const sessionFile = (root: string, id: string) => path.join(sessionDir(root, id), 'session.json');
export const transcriptFile = (root: string, id: string) => path.join(sessionDir(root, id), 'transcript.jsonl');
export const leaseFile = (root: string, id: string) => path.join(sessionDir(root, id), 'lease.json');
/** The highest epoch ever granted for the session, kept beside the lease so a lost lease file never restarts epochs. */
export const leaseEpochFile = (root: string, id: string) => path.join(sessionDir(root, id), 'lease.epoch');
export const leaseLockPath = (root: string, id: string) => path.join(sessionDir(root, id), 'lease.lock');

/** Where the whole of a transcript record too large to store is kept, beside the transcript. */
export function oversizePath(transcript: string, at: number): string {
  return path.join(path.dirname(transcript), 'oversize', `${at}-${randomBytes(4).toString('hex')}.json`);
}
