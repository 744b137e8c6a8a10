// How to start an agent process: the built-in agent (process.execPath + ELECTRON_RUN_AS_NODE=1) or a configured third-party ACP agent.

import { apiKeyEnvVar, configEnvVar, type AgentConfigInput, type ProviderKind } from '../../../shared/agentProtocol/agentConfig';
import type { Redactor } from '../common/redactor';
import { envSecrets, secretEnvNames } from '../common/secretValues';

export interface LaunchSpec {
  /** For logs and errors, e.g. `built-in agent` or `gemini --acp`. */
  label: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Environment variable names whose values are secrets: never logged, shown or stored. */
  secretEnv: string[];
  /** Secrets inside other variables' values (a URL's password): the variable itself is ordinary text. */
  secretValues?: string[];
  builtin: boolean;
  /** Setting to name when the command cannot be started. */
  setting: string;
  /** The window's redactor; the process adds its secrets (`launchSecrets`) and redacts its stderr with it. */
  redactor?: Redactor;
  /** An `env_var` auth method the person signed in with: `authenticate`d before every `session/new` (agentAuth.ts). */
  authMethodId?: string;
  /** Restricted Mode with the person's consent: the agent's session is put in its read-only or plan mode (readOnlyMode.ts). */
  readOnlyMode?: boolean;
}

/**
 * V8 flags of the built-in agent's process (before its script). One process lives per open session, so
 * what an idle one keeps resident counts (bar: 60 MB RSS after use). Measured by bench/agent.bench.ts.
 * - `--max-semi-space-size=1`: V8's young generation otherwise stays at 16 MB committed after the first
 *   turns (two 8 MB semi-spaces), which a full GC at idle does not give back; with 1 MB semi-spaces it is
 *   2 MB. The flag only works on the command line: set at run time, V8 ignores it.
 * - `--jitless`: no optimising or baseline compilers, so neither their machine code nor the pages of the
 *   runtime that hold the compilers become resident (about 6 MB less after use, at no measurable CPU cost
 *   per turn: the agent waits on the network and parses JSON natively). It also removes WebAssembly, which
 *   Node's own fetch (undici) needs; the agent's HTTP goes through node:http (src/agent/providers/nodeFetch.ts).
 *   `--no-expose-wasm` says so explicitly: without it V8 prints a warning about the conflict at every start.
 *   Measured against it (issue 15): `--no-opt --no-maglev` (baseline compiler only, with or without
 *   `--single-threaded`) keeps ~2 MB more after use and gets the prompt's model request out no sooner.
 */
export const builtinAgentNodeFlags: readonly string[] = ['--max-semi-space-size=1', '--jitless', '--no-expose-wasm'];

/** `vigil.model.*` as resolved by the settings layer. */
export interface ModelSettings {
  provider: ProviderKind;
  baseUrl?: string;
  name?: string;
  /** `vigil.model.maxOutputTokens`: the most tokens one model answer may have. */
  maxOutputTokens?: number;
  /** Tests: how long the demo's background "build" runs. */
  demoBuildSeconds?: number;
  /** The longest wait before a model retry: from the watchdog's bound (retryWaitBoundMs), so a wait never looks stalled. */
  retryMaxWaitMs?: number;
}

/** `vigil.agent`: a third-party ACP agent such as `{ command: "gemini", args: ["--acp"] }`. */
export interface CustomAgentSettings {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /** Names of variables whose values are secrets although their names do not say so (`isSecretName`). */
  secretEnv?: string[];
}

/** The values a launch makes secrets: those of its `secretEnv` variables (set or inherited) and its `secretValues`. */
export function launchSecrets(spec: Pick<LaunchSpec, 'env' | 'secretEnv' | 'secretValues'>): string[] {
  return [...spec.secretEnv.map((name) => spec.env[name]).filter((v): v is string => typeof v === 'string'), ...(spec.secretValues ?? [])];
}

export function builtinLaunch(o: { agentScript: string; execPath: string; model: ModelSettings; apiKey?: string; baseEnv?: NodeJS.ProcessEnv }): LaunchSpec {
  // Typed by the schema the agent parses with, so a renamed field or a changed unit does not compile.
  const config: AgentConfigInput = {
    provider: o.model.provider,
    baseUrl: o.model.baseUrl || undefined,
    model: o.model.name || undefined,
    maxTokens: o.model.maxOutputTokens,
    demoBuildSeconds: o.model.demoBuildSeconds,
    retryMaxWaitMs: o.model.retryMaxWaitMs,
  };
  const env: NodeJS.ProcessEnv = { ...(o.baseEnv ?? process.env), ELECTRON_RUN_AS_NODE: '1', [configEnvVar]: JSON.stringify(config) };
  delete env[apiKeyEnvVar];
  if (o.apiKey) env[apiKeyEnvVar] = o.apiKey;
  return { label: 'built-in agent', command: o.execPath, args: [...builtinAgentNodeFlags, o.agentScript], env, secretEnv: [apiKeyEnvVar], builtin: true, setting: 'vigil.model.provider' };
}

/**
 * A third-party agent's launch. Secret are the `env` values whose names say so and those `secretEnv` lists
 * (also inherited ones), and any credentials inside an `env` URL; a model name, a path or a plain URL set
 * there stays readable wherever it appears.
 */
export function customLaunch(settings: CustomAgentSettings, baseEnv: NodeJS.ProcessEnv = process.env): LaunchSpec {
  const args = settings.args ?? [];
  const env = settings.env ?? {};
  return {
    label: [settings.command, ...args].join(' '),
    command: settings.command,
    args,
    env: { ...baseEnv, ...env },
    secretEnv: secretEnvNames(env, settings.secretEnv),
    secretValues: envSecrets(env, settings.secretEnv),
    builtin: false,
    setting: 'vigil.agent',
  };
}
