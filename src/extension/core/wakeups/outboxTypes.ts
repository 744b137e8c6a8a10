// The outbox's durable line format (one transition per line) and the state a session's lines fold into.

import * as z from 'zod';
import type { TaskCompletion } from '../tasks/taskTypes';

export type EntryState = 'pending' | 'claimed' | 'delivered' | 'parked';

export type ReleaseReason = 'busy' | 'failed' | 'not-persisted' | 'timeout';

export const completionSchema = z.object({
  key: z.string().min(1),
  taskId: z.string().min(1),
  sessionId: z.string().min(1),
  kind: z.enum(['exit', 'pattern']),
  command: z.string(),
  status: z.enum(['running', 'exited', 'killed', 'lost']),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  pattern: z.string().optional(),
  matchedLine: z.string().optional(),
  output: z.string(),
  outputTruncated: z.boolean(),
  at: z.number(),
}) satisfies z.ZodType<TaskCompletion>;

const claimSchema = z.object({ claimId: z.string(), by: z.string(), deadline: z.number() });

const keys = z.array(z.string()).min(1);

export const opSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('enqueue'), key: z.string(), completion: completionSchema, at: z.number() }),
  z.object({ op: z.literal('claim'), keys, claimId: z.string(), by: z.string(), deadline: z.number(), at: z.number() }),
  z.object({ op: z.literal('release'), keys, claimId: z.string(), reason: z.enum(['busy', 'failed', 'not-persisted', 'timeout']), notBefore: z.number(), at: z.number() }),
  z.object({ op: z.literal('deliver'), keys, claimId: z.string(), at: z.number() }),
  z.object({ op: z.literal('park'), keys, claimId: z.string(), at: z.number() }),
  /** Written by compaction: one entry's whole state. */
  z.object({
    op: z.literal('entry'),
    key: z.string(),
    state: z.enum(['pending', 'claimed', 'delivered', 'parked']),
    completion: completionSchema.optional(),
    claim: claimSchema.optional(),
    lastClaimId: z.string().optional(),
    notBefore: z.number(),
    attempts: z.number().int(),
    enqueuedAt: z.number(),
    deliveredAt: z.number().optional(),
  }),
]);

export type OutboxOp = z.infer<typeof opSchema>;

export interface OutboxEntry {
  key: string;
  state: EntryState;
  /** Dropped once delivered: a delivered entry only remembers its key (dedup) and when. */
  completion?: TaskCompletion;
  claim?: { claimId: string; by: string; deadline: number };
  /** The last claim that took it, so a delivery after the claim's deadline still counts if nobody re-claimed. */
  lastClaimId?: string;
  /** A failed start backs off before the next wakeup attempt. */
  notBefore: number;
  attempts: number;
  enqueuedAt: number;
  deliveredAt?: number;
}

/** Applies one durable transition. Deterministic, so every window folds the same lines to the same state. */
export function applyOp(entries: Map<string, OutboxEntry>, op: OutboxOp): void {
  switch (op.op) {
    case 'enqueue':
      if (!entries.has(op.key)) entries.set(op.key, { key: op.key, state: 'pending', completion: op.completion, notBefore: 0, attempts: 0, enqueuedAt: op.at });
      return;
    case 'claim':
      for (const key of op.keys) {
        const e = entries.get(key);
        if (!e || e.state === 'delivered') continue;
        e.state = 'claimed';
        e.claim = { claimId: op.claimId, by: op.by, deadline: op.deadline };
        e.lastClaimId = op.claimId;
      }
      return;
    case 'release':
      for (const key of op.keys) {
        const e = entries.get(key);
        if (!e || e.state !== 'claimed' || e.claim?.claimId !== op.claimId) continue;
        e.state = 'pending';
        e.claim = undefined;
        // Given back explicitly: this claim can no longer deliver it.
        e.lastClaimId = undefined;
        e.notBefore = op.notBefore;
        if (op.reason === 'failed') e.attempts += 1;
      }
      return;
    case 'deliver':
      for (const key of op.keys) {
        const e = entries.get(key);
        if (!e || !heldBy(e, op.claimId)) continue;
        e.state = 'delivered';
        e.claim = undefined;
        e.completion = undefined;
        e.deliveredAt = op.at;
      }
      return;
    case 'park':
      for (const key of op.keys) {
        const e = entries.get(key);
        if (!e || e.state !== 'claimed' || e.claim?.claimId !== op.claimId) continue;
        e.state = 'parked';
        e.claim = undefined;
        e.lastClaimId = undefined;
      }
      return;
    case 'entry':
      entries.set(op.key, {
        key: op.key,
        state: op.state,
        completion: op.completion,
        claim: op.claim,
        lastClaimId: op.lastClaimId,
        notBefore: op.notBefore,
        attempts: op.attempts,
        enqueuedAt: op.enqueuedAt,
        deliveredAt: op.deliveredAt,
      });
      return;
    default: {
      const never: never = op;
      throw new Error(`unknown outbox op ${JSON.stringify(never)}`);
    }
  }
}

/** Whether claim `claimId` still carries the entry: it holds the claim, or its claim lapsed and nobody took it since. */
export function heldBy(e: OutboxEntry, claimId: string): boolean {
  if (e.state === 'claimed') return e.claim?.claimId === claimId;
  return e.state !== 'delivered' && e.lastClaimId === claimId;
}

export function isClaimable(e: OutboxEntry, now: number, ignoreBackoff: boolean): boolean {
  if (e.state === 'delivered') return false;
  if (e.state === 'claimed' && (e.claim?.deadline ?? 0) > now) return false;
  return ignoreBackoff || e.notBefore <= now;
}

export function entryToOp(e: OutboxEntry): OutboxOp {
  return {
    op: 'entry',
    key: e.key,
    state: e.state,
    ...(e.completion ? { completion: e.completion } : {}),
    ...(e.claim ? { claim: e.claim } : {}),
    ...(e.lastClaimId ? { lastClaimId: e.lastClaimId } : {}),
    notBefore: e.notBefore,
    attempts: e.attempts,
    enqueuedAt: e.enqueuedAt,
    ...(e.deliveredAt !== undefined ? { deliveredAt: e.deliveredAt } : {}),
  };
}
