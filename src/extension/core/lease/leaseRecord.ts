// The durable shape of a session's turn lease, and the "is its holder provably dead" test.

import * as os from 'node:os';
import * as z from 'zod';

export const leaseHolderSchema = z.object({
  windowId: z.string(),
  pid: z.number().int(),
  host: z.string(),
  turnId: z.string(),
  /**
   * A wakeup that took the lease while its claim was still being written: it may find nothing to carry and let
   * go without running a turn, so no teardown drain follows its tenure.
   */
  tentative: z.literal(true).optional(),
});
export type LeaseHolder = z.infer<typeof leaseHolderSchema>;

export const leaseRecordSchema = z.object({
  version: z.literal(1),
  /** Increases on every acquisition; every durable write of a turn carries it. */
  epoch: z.number().int().nonnegative(),
  /** Null once released: a non-null holder found by a reclaimer means a turn was in flight. */
  holder: leaseHolderSchema.nullable(),
  acquiredAt: z.number(),
  /** Wall-clock ms: the lease is shared between processes, which share no monotonic clock. */
  expiresAt: z.number(),
  ttlMs: z.number(),
});
export type LeaseRecord = z.infer<typeof leaseRecordSchema>;

export function sameHolder(a: LeaseHolder | null, b: LeaseHolder | null): boolean {
  return !!a && !!b && a.windowId === b.windowId && a.pid === b.pid && a.host === b.host && a.turnId === b.turnId;
}

/**
 * True only when the holder ran on this host and its pid no longer exists. A holder on another
 * host, or a pid we may not signal (EPERM), is never "provably" dead: it waits for expiry.
 */
export function isHolderProvablyDead(holder: LeaseHolder, host = os.hostname()): boolean {
  if (holder.host !== host) return false;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
