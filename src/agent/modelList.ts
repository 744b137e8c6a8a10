// The models the session's model picker offers: the configured provider's own list (an OpenAI-compatible
// `/models`, else Ollama's `/api/tags`; Anthropic's `/v1/models`; VS Code's language models through the host),
// the configured model first. A provider that cannot list (down, no key, an odd answer) offers just the
// configured model: listing is a convenience and never an error the person sees; the log says why.

import type { AgentConfig } from './config';
import type { HostChannel } from './hostChannel';
import { log } from './log';
import { anthropicVersion } from './providers/anthropicVersion';
import { nodeFetch } from './providers/nodeFetch';
import { readEnv } from './providers/sdkRequest';
import { VscodeLmProvider } from './providers/vscodeLmProvider';
import { defaultAnthropicModel } from '../shared/agentProtocol/providers';

export interface ModelChoice {
  id: string;
  /** Tokens the model takes in, when its server says so (OpenRouter, vLLM, LM Studio, Anthropic). */
  contextWindow?: number;
}

/** A list answer bigger than this is refused (a real one is a few hundred KB at most). */
const maxListBytes = 2_000_000;
/** More models than a picker can usefully show (and than the host keeps: agentStateLimits.choices). */
export const maxModels = 200;
const listTimeoutMs = 8_000;
/** A model id is echoed back in `session/set_config_option` and sent to the provider: one plain line. */
const plainId = /^[\w.:/@+-]{1,200}$/;

/** The model a session starts with: the configured one, else the provider's default (the demo's is `demo`). */
export function configuredModel(config: Pick<AgentConfig, 'provider' | 'model' | 'scriptPath'>): string {
  if (config.model) return config.model;
  if (config.provider === 'anthropic') return defaultAnthropicModel;
  if (config.provider === 'demo') return config.scriptPath ? 'demo-script' : 'demo';
  return 'default';
}

/** The provider's models with the configured one first; on any failure just the configured one. */
export async function listModels(config: AgentConfig, host: HostChannel, signal: AbortSignal = AbortSignal.timeout(listTimeoutMs)): Promise<ModelChoice[]> {
  const first = configuredModel(config);
  let listed: ModelChoice[] = [];
  try {
    listed = await providerModels(config, host, signal);
    log('info', `model list: ${listed.length} model${listed.length === 1 ? '' : 's'} offered by the ${config.provider} provider`);
  } catch (error) {
    log('info', `model list: the ${config.provider} provider did not list its models (${error instanceof Error ? error.message : String(error)}); offering ${first} only`);
  }
  const seen = new Set<string>();
  const out: ModelChoice[] = [];
  for (const m of [listed.find((l) => l.id === first) ?? { id: first }, ...listed]) {
    if (seen.has(m.id) || out.length >= maxModels) continue;
    seen.add(m.id);
    out.push(m);
  }
  return out;
}

async function providerModels(config: AgentConfig, host: HostChannel, signal: AbortSignal): Promise<ModelChoice[]> {
  switch (config.provider) {
    case 'demo':
      return [];
    case 'openai-compatible':
      return openAiModels(config, signal);
    case 'anthropic':
      return anthropicModels(config, signal);
    case 'vscode-lm':
      return (await VscodeLmProvider.available(host)).map((m) => ({ id: m.id })).filter((m) => plainId.test(m.id));
    case 'auto':
      // Which provider `auto` ends up with is decided at the first prompt; its configured model is what is known.
      return [];
  }
}

async function openAiModels(config: AgentConfig, signal: AbortSignal): Promise<ModelChoice[]> {
  const base = ((config.baseUrl ?? readEnv(process.env, 'OPENAI_BASE_URL')) || 'https://api.openai.com/v1').replace(/\/+$/, '');
  const headers = { accept: 'application/json', authorization: `Bearer ${config.apiKey ?? 'not-needed'}` };
  try {
    return readOpenAiList(await getJson(`${base}/models`, headers, signal));
  } catch (error) {
    if (signal.aborted) throw error;
    // Ollama before its OpenAI-compatible list, and servers that only have their own: `/api/tags` at the origin.
    const tags = await getJson(`${new URL(base).origin}/api/tags`, headers, signal).catch(() => undefined);
    const models = tags ? readOllamaTags(tags) : [];
    if (models.length === 0) throw error;
    return models;
  }
}

async function anthropicModels(config: AgentConfig, signal: AbortSignal): Promise<ModelChoice[]> {
  if (!config.apiKey) throw new Error('no API key is set');
  const base = ((config.baseUrl ?? readEnv(process.env, 'ANTHROPIC_BASE_URL')) || 'https://api.anthropic.com').replace(/\/+$/, '');
  const body = await getJson(`${base}/v1/models?limit=100`, { accept: 'application/json', 'x-api-key': config.apiKey, authorization: `Bearer ${config.apiKey}`, 'anthropic-version': anthropicVersion }, signal);
  return readOpenAiList(body);
}

/** `{ data: [{ id, context_length? | max_model_len? | context_window? | max_input_tokens? }] }`, hostile until read. */
export function readOpenAiList(body: unknown): ModelChoice[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new Error('the answer has no "data" list');
  const out: ModelChoice[] = [];
  for (const item of data.slice(0, maxModels * 5)) {
    const o = (item ?? {}) as Record<string, unknown>;
    if (typeof o.id !== 'string' || !plainId.test(o.id)) continue;
    const window = [o.context_length, o.max_model_len, o.context_window, o.max_context_length, o.max_input_tokens].find((v) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0);
    out.push({ id: o.id, ...(typeof window === 'number' ? { contextWindow: window } : {}) });
  }
  return out;
}

/** Ollama's `{ models: [{ name }] }`. */
export function readOllamaTags(body: unknown): ModelChoice[] {
  const models = (body as { models?: unknown } | null)?.models;
  if (!Array.isArray(models)) return [];
  return models
    .slice(0, maxModels * 5)
    .map((m) => (m as { name?: unknown } | null)?.name)
    .filter((n): n is string => typeof n === 'string' && plainId.test(n))
    .map((id) => ({ id }));
}

/** A bounded GET of JSON: a non-2xx status, a body over `maxListBytes` or a body that is not JSON is an error. */
async function getJson(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<unknown> {
  const response = await nodeFetch(url, { method: 'GET', headers, signal });
  if (!response.ok) {
    void response.body.cancel().catch(() => undefined);
    throw new Error(`GET ${new URL(url).pathname} answered HTTP ${response.status}`);
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxListBytes) {
      void reader.cancel().catch(() => undefined);
      throw new Error(`the model list is over ${maxListBytes} bytes`);
    }
    chunks.push(value);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}
