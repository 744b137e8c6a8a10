// The demo provider's `script` mode: a JSON file dictates each model response in order, including hangs and failures (tests).

import { readFileSync } from 'node:fs';
import * as z from 'zod';
import { ProviderError } from './providerError';
import type { ModelEvent, ModelProvider, ModelRequest } from './types';

const scriptedResponse = z.object({
  /** Text streamed in these chunks (or as one chunk from `text`). */
  chunks: z.array(z.string()).optional(),
  text: z.string().optional(),
  thought: z.string().optional(),
  /** `arguments` may be an object, or a string (to script invalid JSON). */
  toolCalls: z.array(z.object({ name: z.string(), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]) })).optional(),
  /** Stop sending after this many chunks and never finish. */
  hangAfterChunks: z.number().int().nonnegative().optional(),
  /** Milliseconds between chunks. */
  delayMs: z.number().nonnegative().optional(),
  error: z.object({ code: z.enum(['PROVIDER_AUTH', 'PROVIDER_QUOTA', 'PROVIDER_FAILED']), message: z.string() }).optional(),
});
const scriptFile = z.object({ responses: z.array(scriptedResponse) });
export type ScriptedResponse = z.infer<typeof scriptedResponse>;

export class ScriptProvider implements ModelProvider {
  readonly label = 'demo (script)';
  readonly offline = true;
  private readonly responses: ScriptedResponse[];
  private index = 0;

  constructor(path: string) {
    let parsed;
    try {
      parsed = scriptFile.parse(JSON.parse(readFileSync(path, 'utf8')));
    } catch (error) {
      throw new ProviderError('PROVIDER_UNAVAILABLE', `The demo script ${path} cannot be used: ${(error as Error).message}`, 'the VIGIL_DEMO_SCRIPT environment variable', { cause: error });
    }
    this.responses = parsed.responses;
  }

  async *stream(_request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const response = this.responses[this.index++];
    if (!response) {
      yield { kind: 'text', text: '(the demo script has no more responses)' };
      yield { kind: 'end', reason: 'stop' };
      return;
    }
    if (response.error) throw new ProviderError(response.error.code, response.error.message, response.error.code === 'PROVIDER_FAILED' ? undefined : 'Vigil: Set API Key…');
    const chunks = response.chunks ?? (response.text !== undefined ? [response.text] : []);
    if (response.thought) yield { kind: 'thought', text: response.thought };
    let sent = 0;
    for (const chunk of chunks) {
      if (response.hangAfterChunks !== undefined && sent >= response.hangAfterChunks) break;
      if (response.delayMs) await delay(response.delayMs, signal);
      yield { kind: 'text', text: chunk };
      sent += 1;
    }
    if (response.hangAfterChunks !== undefined) {
      await delay(Number.MAX_SAFE_INTEGER, signal);
    }
    const calls = (response.toolCalls ?? []).map((c, i) => ({
      id: `script_${this.index}_${i}`,
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    }));
    for (const call of calls) yield { kind: 'toolCall', call };
    yield { kind: 'end', reason: calls.length > 0 ? 'tool_calls' : 'stop' };
  }
}

/** Resolves after `ms`, or rejects with the abort reason; a hang is `ms = MAX_SAFE_INTEGER` (capped by setTimeout's limit in steps). */
function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, Math.min(ms, 2_147_483_647));
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}
