// The one schema of a turn's changed files (turnChanges.ts), for its transcript record and the view's entry.

import * as z from 'zod';
import { turnChangesLimits, type TurnChangesView, type TurnFileView } from './turnChanges';

const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const turnFileSchema: z.ZodType<TurnFileView> = z.strictObject({
  path: z.string().min(1).max(turnChangesLimits.pathChars),
  change: z.enum(['added', 'modified', 'deleted']),
  added: count.optional(),
  removed: count.optional(),
  noDiff: z.enum(['binary', 'tooLarge']).optional(),
});

export const turnChangesSchema: z.ZodType<TurnChangesView> = z.strictObject({
  files: z.array(turnFileSchema).max(turnChangesLimits.namedFiles),
  count,
  added: count,
  removed: count,
});
