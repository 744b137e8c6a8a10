// The shapes of an agent's elicitation (a form or a link) as the window running the turn publishes it, and of its one
// answer, for every window of the session to show and answer. Files another process wrote are checked against these.

import * as z from 'zod';
import { elicitationLimits } from '../../../shared/elicitationForm';

/**
 * Largest elicitation or answer file read or written. A form's schema and an answer's values are larger than an
 * approval's title (50 fields of up to 10,000 characters), but still bounded: a bigger one is refused, not truncated.
 */
export const elicitationFileBytes = 2 * 1024 * 1024;

const base = {
  version: z.literal(1),
  sessionId: z.string(),
  requestId: z.string(),
  turnId: z.string(),
  windowId: z.string(),
  message: z.string().max(elicitationLimits.messageChars),
  at: z.number(),
  /** Wall ms after which the holder declines it on its own. */
  deadlineAt: z.number(),
};

export const elicitationRequestSchema = z.discriminatedUnion('mode', [
  /** `schema` absent: the agent's schema was too large for the store; other windows can only decline or cancel. */
  z.object({ ...base, mode: z.literal('form'), schema: z.unknown().optional() }),
  z.object({ ...base, mode: z.literal('url'), url: z.string().max(elicitationLimits.urlChars), host: z.string().max(elicitationLimits.urlChars) }),
]);
export type ElicitationRequest = z.infer<typeof elicitationRequestSchema>;

const value = z.union([
  z.string().max(elicitationLimits.valueChars),
  z.number(),
  z.boolean(),
  z.array(z.string().max(elicitationLimits.valueChars)).max(elicitationLimits.options),
]);

export const elicitationAnswerSchema = z.object({
  version: z.literal(1),
  /** `cancel` by the holder: the question was withdrawn (its turn ended, or the agent finished a link's flow). */
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z
    .record(z.string().max(elicitationLimits.nameChars), value)
    .refine((c) => Object.keys(c).length <= elicitationLimits.fields, 'too many fields')
    .optional(),
  by: z.string(),
  at: z.number(),
  /** Why, when nobody chose it (the timeout). */
  reason: z.string().max(1_000).optional(),
});
export type ElicitationStoredAnswer = z.infer<typeof elicitationAnswerSchema>;
