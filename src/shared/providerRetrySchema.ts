// The params of the agent's retry notification (`providerRetryMethod`, providerRetry.ts) as a zod schema, apart
// from the rest of that contract: the host's settings use providerRetry.ts when the extension activates, and
// only the ACP connection, on first use, parses the notification (so zod stays off the activation path).

import * as z from 'zod';

export const providerRetryParams = z.object({
  sessionId: z.string().max(200),
  /** This retry's number, from 1, and how many the agent makes at most. */
  attempt: z.number().int().min(1).max(100),
  maxRetries: z.number().int().min(1).max(100),
  /** How long the agent waits before it sends the request again. */
  delayMs: z.number().int().nonnegative().max(24 * 3600 * 1000),
  /** What failed, e.g. `HTTP 429` or `connection reset (ECONNRESET)`. */
  reason: z.string().max(200),
});
export type ProviderRetryParams = z.infer<typeof providerRetryParams>;
