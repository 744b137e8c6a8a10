// Validation of `vigil.*` settings (except turnLiveness, which has its own resolver in core/settings):
// every invalid value falls back to its default with a message naming the setting and the fix. Pure, unit-tested.

import { providerKinds, type ProviderKind } from '../../../shared/agentProtocol/providers';
import type { McpServer } from '@agentclientprotocol/sdk';
import type { CustomAgentSettings } from '../acp/agentLaunch';
import { validateMcpServers } from '../acp/mcpSettings';
import type { ApprovalMode } from '../acp/hostPorts';
import { TOOL_KINDS, type ToolKind } from '../../../shared/toolKinds';
import { DEFAULT_TASK_CAPS, TASK_CAP_RANGE } from '../tasks/startSlots';

export type AgentSetting = { kind: 'built-in' } | ({ kind: 'custom' } & Required<CustomAgentSettings>);

const APPROVAL_MODES: readonly ApprovalMode[] = ['ask', 'allowReadOnly', 'allowAll'];

export interface ModelSettingValues {
  provider: ProviderKind;
  /** '' = the provider's default endpoint. */
  baseUrl: string;
  /** '' = the provider's default model. */
  name: string;
  /** The most tokens the built-in agent asks the model to write in one answer (`max_tokens`). */
  maxOutputTokens: number;
}

/** `vigil.model.maxOutputTokens`: the bounds every provider accepts (below 256 hardly fits a tool call). */
export const MAX_OUTPUT_TOKENS_RANGE = { min: 256, max: 1_000_000, default: 4096 } as const;

/** `vigil.notifications.*`: one switch per kind of event (presentation/attentionPolicy.ts decides what each covers). */
export interface AttentionSettings {
  turnFinished: boolean;
  approvalNeeded: boolean;
  stalled: boolean;
  wakeup: boolean;
}

/** Everything of `vigil.*` except `turnLiveness`, validated. */
export interface ValidatedSettings {
  agent: AgentSetting;
  model: ModelSettingValues;
  wakeups: { maxPerTurn: number };
  /** `detachedGraceSeconds`: how long a turn runs on behind its relay with no window (default 600); 0: agents run without the relay, a turn ends with its window. */
  turns: { detachedGraceSeconds: number };
  /**
   * `offerToAgents`: third-party agents get Vigil's MCP task server (background commands with wakeups).
   * `maxRunningPerSession` / `maxRunningPerWindow`: a start over either is refused, telling the agent what to do.
   */
  tasks: { outputByteLimit: number; offerToAgents: boolean; maxRunningPerSession: number; maxRunningPerWindow: number };
  /** `timeoutSeconds`: an approval nobody answers is rejected after this long (10 s … 24 h). */
  approvals: { policy: ApprovalMode; byKind: Partial<Record<ToolKind, ApprovalMode>>; timeoutSeconds: number };
  /** `vigil.mcpServers`, valid entries only (ACP's shape), offered to every agent. */
  mcpServers: McpServer[];
  /** `enabled`: each turn's folder is snapshotted before and after it, for "Restore to before this turn". */
  checkpoints: { enabled: boolean };
  /** `vigil.notifications.*`: which events notify while the person looks elsewhere. */
  notifications: AttentionSettings;
  /** `review`: the agent's writes apply at once (`auto`) or wait for the person's review of their diff (`ask`). */
  edits: { review: 'auto' | 'ask' };
}

export interface SettingIssue {
  /** Full setting id, e.g. `vigil.agent`, for the log and for "Open Settings". */
  key: string;
  message: string;
}

export const SETTING_DEFAULTS: ValidatedSettings = {
  agent: { kind: 'built-in' },
  model: { provider: 'demo', baseUrl: '', name: '', maxOutputTokens: MAX_OUTPUT_TOKENS_RANGE.default },
  wakeups: { maxPerTurn: 5 },
  turns: { detachedGraceSeconds: 600 },
  tasks: { outputByteLimit: 1_048_576, offerToAgents: true, maxRunningPerSession: DEFAULT_TASK_CAPS.perSession, maxRunningPerWindow: DEFAULT_TASK_CAPS.perWindow },
  approvals: { policy: 'allowReadOnly', byKind: {}, timeoutSeconds: 600 },
  mcpServers: [],
  checkpoints: { enabled: true },
  notifications: { turnFinished: true, approvalNeeded: true, stalled: true, wakeup: true },
  edits: { review: 'auto' },
};

/** Reads one setting below `vigil.` (e.g. `model.name`); undefined when unset. */
export type SettingReader = (key: string) => unknown;

/** Every key `validateSettings` reads. (`model.scriptFile` is gone: the demo script is test-only, via VIGIL_DEMO_SCRIPT.) */
export const SETTING_KEYS = ['agent', 'model.provider', 'model.baseUrl', 'model.name', 'model.maxOutputTokens', 'wakeups.maxPerTurn', 'turns.detachedGraceSeconds', 'tasks.outputByteLimit', 'tasks.offerToAgents', 'tasks.maxRunningPerSession', 'tasks.maxRunningPerWindow', 'approvals.policy', 'approvals.byKind', 'approvals.timeoutSeconds', 'mcpServers', 'checkpoints.enabled', 'edits.review', 'notifications.turnFinished', 'notifications.approvalNeeded', 'notifications.stalled', 'notifications.wakeup'] as const;

export function validateSettings(read: SettingReader): { settings: ValidatedSettings; issues: SettingIssue[] } {
  const issues: SettingIssue[] = [];
  const issue = (key: string, message: string) => issues.push({ key: `vigil.${key}`, message });
  const settings: ValidatedSettings = {
    agent: validateAgent(read('agent'), (m) => issue('agent', m)),
    model: {
      provider: oneOf(read('model.provider'), providerKinds, SETTING_DEFAULTS.model.provider, 'model.provider', issue),
      baseUrl: baseUrl(read('model.baseUrl'), issue),
      name: text(read('model.name'), 'model.name', 200, issue),
      maxOutputTokens: integer(read('model.maxOutputTokens'), 'model.maxOutputTokens', MAX_OUTPUT_TOKENS_RANGE.min, MAX_OUTPUT_TOKENS_RANGE.max, MAX_OUTPUT_TOKENS_RANGE.default, issue),
    },
    wakeups: { maxPerTurn: integer(read('wakeups.maxPerTurn'), 'wakeups.maxPerTurn', 1, 100, SETTING_DEFAULTS.wakeups.maxPerTurn, issue) },
    turns: { detachedGraceSeconds: integer(read('turns.detachedGraceSeconds'), 'turns.detachedGraceSeconds', 0, 86_400, SETTING_DEFAULTS.turns.detachedGraceSeconds, issue) },
    tasks: {
      outputByteLimit: integer(read('tasks.outputByteLimit'), 'tasks.outputByteLimit', 1024, 67_108_864, SETTING_DEFAULTS.tasks.outputByteLimit, issue),
      offerToAgents: boolean(read('tasks.offerToAgents'), 'tasks.offerToAgents', SETTING_DEFAULTS.tasks.offerToAgents, issue),
      maxRunningPerSession: integer(read('tasks.maxRunningPerSession'), 'tasks.maxRunningPerSession', TASK_CAP_RANGE.perSession.min, TASK_CAP_RANGE.perSession.max, SETTING_DEFAULTS.tasks.maxRunningPerSession, issue),
      maxRunningPerWindow: integer(read('tasks.maxRunningPerWindow'), 'tasks.maxRunningPerWindow', TASK_CAP_RANGE.perWindow.min, TASK_CAP_RANGE.perWindow.max, SETTING_DEFAULTS.tasks.maxRunningPerWindow, issue),
    },
    approvals: {
      policy: oneOf(read('approvals.policy'), APPROVAL_MODES, SETTING_DEFAULTS.approvals.policy, 'approvals.policy', issue),
      byKind: byKind(read('approvals.byKind'), issue),
      timeoutSeconds: integer(read('approvals.timeoutSeconds'), 'approvals.timeoutSeconds', 10, 86_400, SETTING_DEFAULTS.approvals.timeoutSeconds, issue),
    },
    mcpServers: mcpServers(read('mcpServers'), issue),
    checkpoints: { enabled: boolean(read('checkpoints.enabled'), 'checkpoints.enabled', SETTING_DEFAULTS.checkpoints.enabled, issue) },
    notifications: {
      turnFinished: boolean(read('notifications.turnFinished'), 'notifications.turnFinished', true, issue),
      approvalNeeded: boolean(read('notifications.approvalNeeded'), 'notifications.approvalNeeded', true, issue),
      stalled: boolean(read('notifications.stalled'), 'notifications.stalled', true, issue),
      wakeup: boolean(read('notifications.wakeup'), 'notifications.wakeup', true, issue),
    },
    edits: { review: oneOf(read('edits.review'), ['auto', 'ask'] as const, SETTING_DEFAULTS.edits.review, 'edits.review', issue) },
  };
  return { settings, issues };
}

/** The approval mode for one tool kind: its override, else the policy. */
export function approvalModeFor(approvals: ValidatedSettings['approvals'], kind: string | undefined): ApprovalMode {
  if (kind !== undefined && (TOOL_KINDS as readonly string[]).includes(kind)) return approvals.byKind[kind as ToolKind] ?? approvals.policy;
  return approvals.policy;
}

/** `"built-in"` or `{ command, args, env, secretEnv }`; anything else is explained, with an example. */
export function validateAgent(value: unknown, report: (message: string) => void): AgentSetting {
  const example = 'Use "built-in", or a third-party ACP agent as { "command": "gemini", "args": ["--acp"], "env": {}, "secretEnv": [] }.';
  if (value === undefined || value === null || value === 'built-in') return { kind: 'built-in' };
  if (typeof value === 'string') {
    report(`vigil.agent is "${clip(value)}", which is not an agent. ${example} Using the built-in agent meanwhile.`);
    return { kind: 'built-in' };
  }
  if (!isRecord(value)) {
    report(`vigil.agent must be "built-in" or an object, not ${describe(value)}. ${example} Using the built-in agent meanwhile.`);
    return { kind: 'built-in' };
  }
  const problems: string[] = [];
  const command = typeof value.command === 'string' ? value.command.trim() : '';
  if (!command) problems.push('"command" must be a non-empty string (the agent\'s executable)');
  const args = value.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) problems.push('"args" must be an array of strings');
  const env = value.env ?? {};
  if (!isRecord(env) || !Object.values(env).every((v) => typeof v === 'string')) problems.push('"env" must be an object of string values');
  const secretEnv = value.secretEnv ?? [];
  const secretProblem = secretEnvProblem(secretEnv);
  if (secretProblem) problems.push(secretProblem);
  const unknown = Object.keys(value).filter((k) => !['command', 'args', 'env', 'secretEnv'].includes(k));
  if (unknown.length > 0) problems.push(`unknown field${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => `"${k}"`).join(', ')}`);
  if (problems.length > 0) {
    // The built-in agent, not this one: started without its declared secrets, it could have them shown.
    report(`vigil.agent is not a valid ACP agent: ${problems.join('; ')}. ${example} Using the built-in agent meanwhile.`);
    return { kind: 'built-in' };
  }
  return { kind: 'custom', command, args: args as string[], env: env as Record<string, string>, secretEnv: secretEnv as string[] };
}

/** More names than any agent needs are a mistake (or hostile); a name is what an env var can be called. */
const maxSecretEnv = 64;

/** `secretEnv`: the names of variables whose values are secrets though their names do not say so. */
function secretEnvProblem(value: unknown): string | undefined {
  const fix = '"secretEnv" must be a list of environment variable names, e.g. ["MY_SERVICE_PAT"]';
  if (!Array.isArray(value)) return fix;
  if (value.length > maxSecretEnv) return `${fix}, at most ${maxSecretEnv} of them`;
  const bad = value.find((name) => typeof name !== 'string' || name.length === 0 || name.length > 256 || name.includes('=') || name.includes('\0'));
  return bad === undefined ? undefined : `${fix}; ${describe(bad)} is not one`;
}

/** Valid entries are used; the bad ones are named, with the fix, in one message (one issue per key). */
function mcpServers(value: unknown, issue: (key: string, message: string) => void): McpServer[] {
  const { servers, issues } = validateMcpServers(value);
  if (issues.length > 0) {
    const rest = servers.length === 0 ? 'No MCP server is used meanwhile.' : `The other ${servers.length === 1 ? 'server is' : `${servers.length} servers are`} used.`;
    issue('mcpServers', `vigil.mcpServers: ${issues.map((i) => `entry ${i.entry} ${i.message}`).join(' ')} ${rest}`);
  }
  return servers;
}

/** '' or an absolute http(s) URL. */
export function validateBaseUrl(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return `"${clip(trimmed)}" is not a URL; write it in full, e.g. http://127.0.0.1:11434/v1 or https://api.openai.com/v1.`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `The base URL must start with http:// or https://, not ${url.protocol}//.`;
  return undefined;
}

function baseUrl(value: unknown, issue: (key: string, message: string) => void): string {
  const raw = text(value, 'model.baseUrl', 2048, issue);
  const problem = validateBaseUrl(raw);
  if (problem) {
    issue('model.baseUrl', `vigil.model.baseUrl: ${problem} Using the provider's default endpoint meanwhile.`);
    return '';
  }
  return raw.trim();
}

function text(value: unknown, key: string, max: number, issue: (key: string, message: string) => void): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') {
    issue(key, `vigil.${key} must be a string, not ${describe(value)}; fix it in settings. It is ignored meanwhile.`);
    return '';
  }
  if (value.length > max) {
    issue(key, `vigil.${key} is ${value.length} characters long; at most ${max} are allowed. It is ignored meanwhile.`);
    return '';
  }
  return value.trim();
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T, key: string, issue: (key: string, message: string) => void): T {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  issue(key, `vigil.${key} is ${describe(value)}; it must be one of ${allowed.map((a) => `"${a}"`).join(', ')}. Using "${fallback}" meanwhile.`);
  return fallback;
}

function integer(value: unknown, key: string, min: number, max: number, fallback: number, issue: (key: string, message: string) => void): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    issue(key, `vigil.${key} is ${describe(value)}; it must be a whole number from ${min} to ${max}. Using ${fallback} meanwhile.`);
    return fallback;
  }
  return value;
}

function boolean(value: unknown, key: string, fallback: boolean, issue: (key: string, message: string) => void): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  issue(key, `vigil.${key} is ${describe(value)}; it must be true or false. Using ${fallback} meanwhile.`);
  return fallback;
}

function byKind(value: unknown, issue: (key: string, message: string) => void): Partial<Record<ToolKind, ApprovalMode>> {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    issue('approvals.byKind', `vigil.approvals.byKind must be an object such as { "execute": "ask" }, not ${describe(value)}. Using vigil.approvals.policy for every kind meanwhile.`);
    return {};
  }
  const result: Partial<Record<ToolKind, ApprovalMode>> = {};
  const bad: string[] = [];
  for (const [kind, mode] of Object.entries(value)) {
    if (!(TOOL_KINDS as readonly string[]).includes(kind)) bad.push(`"${clip(kind)}" is not a tool kind (${TOOL_KINDS.join(', ')})`);
    else if (typeof mode !== 'string' || !(APPROVAL_MODES as readonly string[]).includes(mode)) bad.push(`"${kind}" must be one of ${APPROVAL_MODES.map((m) => `"${m}"`).join(', ')}, not ${describe(mode)}`);
    else result[kind as ToolKind] = mode as ApprovalMode;
  }
  if (bad.length > 0) issue('approvals.byKind', `vigil.approvals.byKind: ${bad.join('; ')}. Those entries are ignored; vigil.approvals.policy applies to them.`);
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `"${clip(value)}"`;
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** Remembers which keys were reported, so a bad value re-read on every change is reported once; a fixed key may be reported again later. */
export class IssueLedger {
  private readonly reported = new Map<string, string>();

  /** The issues not reported yet; forgets keys that are valid now, so breaking one again is reported again. */
  fresh(issues: readonly SettingIssue[]): SettingIssue[] {
    const current = new Set(issues.map((i) => i.key));
    for (const key of [...this.reported.keys()]) if (!current.has(key)) this.reported.delete(key);
    const out: SettingIssue[] = [];
    for (const issue of issues) {
      if (this.reported.has(issue.key)) continue;
      this.reported.set(issue.key, issue.message);
      out.push(issue);
    }
    return out;
  }
}
