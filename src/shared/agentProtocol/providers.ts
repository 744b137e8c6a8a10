// The model providers of the built-in agent, written once: the agent's configuration schema, the host's
// validation of `vigil.model.provider` and the manifest's enum (checked by a test) all use this list.

export const providerKinds = ['auto', 'vscode-lm', 'openai-compatible', 'anthropic', 'demo'] as const;
export type ProviderKind = (typeof providerKinds)[number];
