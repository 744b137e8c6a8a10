// The built-in agent's configuration as the host hands it over at spawn: the environment variable names and
// the schema. The host types what it writes with this schema's input type; the agent parses with the schema.

import * as z from 'zod';
import { providerKinds, type ProviderKind } from './providers';

/** Environment variable carrying the JSON configuration (no secrets in it). */
export const configEnvVar = 'VIGIL_AGENT_CONFIG';
/** Environment variable carrying the provider's API key (from SecretStorage; never logged). */
export const apiKeyEnvVar = 'VIGIL_API_KEY';
/** Environment override of `scriptPath` (tests, and the e2e suite's scripted agent). */
export const demoScriptEnvVar = 'VIGIL_DEMO_SCRIPT';
/**
 * Tests only: the demo holds its first answer half-way until this file exists, so a test can see the answer
 * while it streams (a state it then releases), instead of racing a stream that has no pacing.
 */
export const demoHoldEnvVar = 'VIGIL_DEMO_HOLD_FILE';

export { providerKinds, type ProviderKind };

export const agentConfigSchema = z.object({
  provider: z.enum(providerKinds).default('demo'),
  baseUrl: z.string().optional(),
  model: z.string().optional(),
  /** Demo provider only: a JSON file that dictates each model response (tests). */
  scriptPath: z.string().optional(),
  /** No first content event within this long after the request → timeout. */
  firstTokenTimeoutMs: z.number().positive().default(60_000),
  /** No content event for this long in the middle of a stream → timeout (keep-alives do not count). */
  idleTimeoutMs: z.number().positive().default(60_000),
  /** All model calls of one prompt turn together may take no longer than this. */
  turnTimeoutMs: z.number().positive().default(1_800_000),
  /** Model calls per prompt before the turn ends with `max_turn_requests`. */
  maxSteps: z.number().int().positive().default(25),
  /** A foreground command is killed after this long. */
  commandTimeoutMs: z.number().positive().default(120_000),
  /** The most tokens one model answer may have (`vigil.model.maxOutputTokens`). */
  maxTokens: z.number().int().positive().default(4096),
  /** The model's context window in tokens; unset: what the provider's model list says, else 128k. */
  contextWindow: z.number().int().positive().optional(),
  /** The history is compacted (older turns summarised) once it fills this fraction of the context window. */
  compactAt: z.number().min(0.1).max(0.95).default(0.8),
  /** An MCP server must connect and list its tools within this long, or it is left out (and named to the model). */
  mcpConnectTimeoutMs: z.number().positive().default(15_000),
  /** An MCP tool call that takes longer is abandoned with a tool error. */
  mcpCallTimeoutMs: z.number().positive().default(120_000),
  /** Transient model failures (rate limits, 5xx, dropped connections) are retried this many times. */
  retryMaxRetries: z.number().int().min(0).max(10).default(5),
  /** First backoff before a retry without Retry-After; doubles each time (jittered), at most 30 s. */
  retryBaseDelayMs: z.number().nonnegative().default(1000),
  /** The longest wait before a retry (the host derives it from the watchdog's bound); a longer Retry-After fails the call. */
  retryMaxWaitMs: z.number().positive().default(120_000),
  /** How long the demo's background "build" runs. */
  demoBuildSeconds: z.number().nonnegative().default(3),
});

/** What the host may write into `VIGIL_AGENT_CONFIG` (omitted fields take the schema's defaults). */
export type AgentConfigInput = z.input<typeof agentConfigSchema>;
