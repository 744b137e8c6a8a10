// How to start an agent process: the built-in agent (process.execPath + ELECTRON_RUN_AS_NODE=1) or a configured third-party ACP agent.

import { apiKeyEnvVar, configEnvVar, type ProviderKind } from '../../../agent/config';
import type { Redactor } from '../common/redactor';

export interface LaunchSpec {
  /** For logs and errors, e.g. `built-in agent` or `gemini --acp`. */
  label: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Environment variable names whose values must never be logged. */
  secretEnv: string[];
  builtin: boolean;
  /** Setting to name when the command cannot be started. */
  setting: string;
  /** The window's redactor; the process adds its `secretEnv` values and redacts its stderr with it. */
  redactor?: Redactor;
  /** An `env_var` auth method the person signed in with: `authenticate`d before every `session/new` (agentAuth.ts). */
  authMethodId?: string;
}

/** `vigil.model.*` as resolved by the settings layer. */
export interface ModelSettings {
  provider: ProviderKind;
  baseUrl?: string;
  name?: string;
  firstTokenTimeoutSeconds?: number;
  idleTimeoutSeconds?: number;
  turnTimeoutSeconds?: number;
  maxSteps?: number;
  demoBuildSeconds?: number;
  /** The longest wait before a model retry: from the watchdog's bound (retryWaitBoundMs), so a wait never looks stalled. */
  retryMaxWaitMs?: number;
}

/** `vigil.agent`: a third-party ACP agent such as `{ command: "gemini", args: ["--acp"] }`. */
export interface CustomAgentSettings {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

export function builtinLaunch(o: { agentScript: string; execPath: string; model: ModelSettings; apiKey?: string; baseEnv?: NodeJS.ProcessEnv }): LaunchSpec {
  const seconds = (s: number | undefined) => (s !== undefined && Number.isFinite(s) && s > 0 ? s * 1000 : undefined);
  const config = {
    provider: o.model.provider,
    baseUrl: o.model.baseUrl || undefined,
    model: o.model.name || undefined,
    firstTokenTimeoutMs: seconds(o.model.firstTokenTimeoutSeconds),
    idleTimeoutMs: seconds(o.model.idleTimeoutSeconds),
    turnTimeoutMs: seconds(o.model.turnTimeoutSeconds),
    maxSteps: o.model.maxSteps,
    demoBuildSeconds: o.model.demoBuildSeconds,
    retryMaxWaitMs: o.model.retryMaxWaitMs,
  };
  const env: NodeJS.ProcessEnv = { ...(o.baseEnv ?? process.env), ELECTRON_RUN_AS_NODE: '1', [configEnvVar]: JSON.stringify(config) };
  delete env[apiKeyEnvVar];
  if (o.apiKey) env[apiKeyEnvVar] = o.apiKey;
  return { label: 'built-in agent', command: o.execPath, args: [o.agentScript], env, secretEnv: [apiKeyEnvVar], builtin: true, setting: 'vigil.model.provider' };
}

export function customLaunch(settings: CustomAgentSettings, baseEnv: NodeJS.ProcessEnv = process.env): LaunchSpec {
  const args = settings.args ?? [];
  return {
    label: [settings.command, ...args].join(' '),
    command: settings.command,
    args,
    env: { ...baseEnv, ...(settings.env ?? {}) },
    // Values the person put in vigil.agent.env may be keys; never log any of them.
    secretEnv: Object.keys(settings.env ?? {}),
    builtin: false,
    setting: 'vigil.agent.command',
  };
}

/**
 * What the composition root calls on every spawn: a configured `vigil.agent` wins; otherwise the
 * built-in agent with `vigil.model.*` and the provider's key from SecretStorage.
 */
export async function resolveLaunch(o: {
  agent?: CustomAgentSettings;
  model: ModelSettings;
  secrets: { apiKey(provider: 'openai-compatible' | 'anthropic'): Promise<string | undefined> };
  agentScript: string;
  execPath: string;
}): Promise<LaunchSpec> {
  if (o.agent?.command?.trim()) return customLaunch(o.agent);
  const keyFor = o.model.provider === 'anthropic' ? 'anthropic' : o.model.provider === 'openai-compatible' || o.model.provider === 'auto' ? 'openai-compatible' : undefined;
  let apiKey = keyFor ? await o.secrets.apiKey(keyFor) : undefined;
  if (o.model.provider === 'auto' && !apiKey) apiKey = await o.secrets.apiKey('anthropic');
  return builtinLaunch({ agentScript: o.agentScript, execPath: o.execPath, model: o.model, apiKey });
}
