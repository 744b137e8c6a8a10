// The model providers of the built-in agent, written once: the agent's configuration schema, the host's
// validation of `vigil.model.provider` and the manifest's enum (checked by a test) all use this list.

export const providerKinds = ['auto', 'vscode-lm', 'openai-compatible', 'anthropic', 'demo'] as const;
export type ProviderKind = (typeof providerKinds)[number];

/** The model of the `anthropic` provider when `vigil.model.name` is empty (also the example the host shows). */
export const defaultAnthropicModel = 'claude-sonnet-5-5';

/**
 * The keyed provider `auto` picks first, before VS Code's models and the demo: a base URL → openai-compatible,
 * else a claude model → anthropic (the agent takes that one only with a key). The host asks for the key to hand
 * over by the same rule, so the two can never disagree.
 */
export function autoKeyedProvider(o: { baseUrl?: string; model?: string }): 'openai-compatible' | 'anthropic' | undefined {
  if (o.baseUrl) return 'openai-compatible';
  if (o.model?.startsWith('claude')) return 'anthropic';
  return undefined;
}
