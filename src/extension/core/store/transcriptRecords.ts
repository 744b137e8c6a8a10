// The typed records of a session transcript (one JSON object per line) and their validation.

import * as z from 'zod';
import { turnChangesSchema } from '../../../shared/turnChangesSchema';

/** Set on a record stored cut because it exceeded the size bound: how big it was and where the whole is. */
const truncatedSchema = z.object({ bytes: z.number(), kept: z.number(), fullRecord: z.string() });

const attachmentSummarySchema = z.object({
  kind: z.enum(['file', 'selection', 'problems', 'image']),
  name: z.string().max(4_000),
  uri: z.string().max(8_192).optional(),
  size: z.number().int().nonnegative().optional(),
});

const base = { at: z.number(), turnId: z.string().optional(), truncated: truncatedSchema.optional() };

export const transcriptRecordSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('userPrompt'), ...base, text: z.string(), source: z.enum(['user', 'wakeup', 'resume']),
    /** What was attached: names and links only (never image bytes or embedded text), so a reload shows it. */
    attachments: z.array(attachmentSummarySchema).max(100).optional(),
    /** A wakeup's background tasks, in the order its text reports them (records before this field: parsed from the text). */
    taskIds: z.array(z.string().max(200)).max(1_000).optional(),
    /** The prompt replaces the turn before it (an edit, retry or regenerate); `replaced`: the agent's history lost that turn. */
    redo: z.object({ how: z.enum(['edit', 'retry', 'regenerate']), replaced: z.boolean() }).optional(),
    /** The wakeup outbox claim this prompt carries: a claim whose window died after this record is delivered, not claimed again. */
    claimId: z.string().max(200).optional(),
  }),
  /** The `update` field of an ACP `session/update`, kept verbatim for replay. */
  z.object({ type: z.literal('agentUpdate'), ...base, update: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('notice'), ...base, level: z.enum(['info', 'warning', 'error']), text: z.string() }),
  z.object({ type: z.literal('turnStarted'), ...base, source: z.enum(['user', 'wakeup', 'resume']), epoch: z.number() }),
  z.object({
    type: z.literal('turnEnded'),
    ...base,
    reason: z.enum(['completed', 'cancelled', 'aborted', 'interrupted', 'failed']),
    message: z.string().optional(),
  }),
  /** Written by the next holder when a turn's holder died or lapsed while the turn was in flight. */
  z.object({ type: z.literal('interrupted'), ...base, reason: z.string() }),
  /** The turn's checkpoint: git trees of its folder before and after it (core/checkpoints), or why there is none. */
  z.object({
    type: z.literal('checkpoint'), ...base, folder: z.string().max(8_192).optional(),
    before: z.string().regex(/^[0-9a-f]{40,64}$/).optional(), after: z.string().regex(/^[0-9a-f]{40,64}$/).optional(),
    skipped: z.array(z.object({ path: z.string().max(8_192), bytes: z.number().optional() })).max(100).optional(),
    skippedCount: z.number().int().nonnegative().optional(), unavailable: z.string().max(4_000).optional(),
    /** The files the turn changed (absent in records from before it was kept): one damaged list is dropped alone. */
    changes: turnChangesSchema.optional().catch(undefined),
  }),
  /** Stands in for the result of a tool call that never produced one. */
  z.object({
    type: z.literal('syntheticToolResult'),
    ...base,
    toolCallId: z.string(),
    /** `ended`: the turn ended while the agent still showed the call pending or running. */
    status: z.enum(['failed', 'cancelled', 'ended']),
    text: z.string(),
  }),
]);

export type TranscriptRecord = z.infer<typeof transcriptRecordSchema>;
export type TranscriptRecordType = TranscriptRecord['type'];

/** Distributes Omit over the union, so callers can build a record without its timestamp. */
export type RecordInput = TranscriptRecord extends infer R ? (R extends TranscriptRecord ? Omit<R, 'at'> & { at?: number } : never) : never;

export function parseTranscriptRecord(value: unknown): TranscriptRecord | undefined {
  const parsed = transcriptRecordSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
