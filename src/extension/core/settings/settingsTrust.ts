// Whether a workspace may decide a `vigil.*` setting: Restricted Mode drops workspace values of the restricted
// settings; in a trusted workspace its agent or endpoint counts only once the person confirmed that exact value,
// and its approval settings may only make approvals stricter. Pure (no `vscode`), unit-tested.

import { createHash } from 'node:crypto';
import type { ApprovalMode } from '../acp/hostPorts';
import { describeMcpServer, validateMcpServers } from '../acp/mcpSettings';
import { approvalModeFor, validateAgent, type ValidatedSettings } from './settingsValidation';
import { TOOL_KINDS, type ToolKind } from '../../../shared/toolKinds';

/** Settings below `vigil.` that decide what runs, where secrets go, or what is allowed: never from an untrusted workspace. */
export const RESTRICTED_SETTINGS = ['agent', 'model.provider', 'model.baseUrl', 'model.name', 'approvals.policy', 'approvals.byKind', 'tasks.outputByteLimit', 'tasks.offerToAgents', 'mcpServers'] as const;
/** Of those, the ones a trusted workspace may set only after the person confirmed the exact value (MCP servers run commands like an agent). */
export const CONFIRMED_SETTINGS = ['agent', 'model.baseUrl', 'mcpServers'] as const;
export type ConfirmedSetting = (typeof CONFIRMED_SETTINGS)[number];

/** What `WorkspaceConfiguration.inspect()` reports for one setting (the parts that matter here). */
export interface SettingLayers {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export type SettingOrigin = 'default' | 'user' | 'workspace' | 'workspaceFolder';
export type Answer = 'confirmed' | 'declined' | 'unanswered';

/** The value a setting has, and the layer it comes from; the most specific layer wins, as in VS Code. */
export function layeredValue(layers: SettingLayers | undefined, includeWorkspace: boolean): { value: unknown; origin: SettingOrigin } {
  if (includeWorkspace && layers?.workspaceFolderValue !== undefined) return { value: layers.workspaceFolderValue, origin: 'workspaceFolder' };
  if (includeWorkspace && layers?.workspaceValue !== undefined) return { value: layers.workspaceValue, origin: 'workspace' };
  if (layers?.globalValue !== undefined) return { value: layers.globalValue, origin: 'user' };
  return { value: layers?.defaultValue, origin: 'default' };
}

/** JSON with object keys sorted at every depth, so equal values always give equal text (and hash). */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text; // functions, symbols: not JSON values
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
}

/** Identity of one setting's value: the setting's name with the value's canonical JSON, hashed (SHA-256, hex). */
export function valueHash(key: string, value: unknown): string {
  return createHash('sha256').update(`vigil.${key}\n${canonicalJson(value)}`).digest('hex');
}

/** A value that chooses nothing a person must vouch for: the built-in agent, or the provider's own endpoint. */
export function isHarmless(key: ConfirmedSetting, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  // What the validator refuses (a string command, `vigil.agent.env` alone, …) falls back to the built-in agent:
  // asking about it would show "command: undefined" for a value that can start nothing.
  if (key === 'agent') return validateAgent(value, () => undefined).kind === 'built-in';
  // Only valid entries ever reach an agent: a list of nothing usable starts nothing.
  if (key === 'mcpServers') return validateMcpServers(value).servers.length === 0;
  return typeof value === 'string' && value.trim() === '';
}

/** A workspace value waiting for the person's confirmation. */
export interface WorkspaceValueQuestion {
  key: ConfirmedSetting;
  value: unknown;
  hash: string;
  origin: 'workspace' | 'workspaceFolder';
}

/** A workspace value that is not used, and why; for the log and the view. */
export interface IgnoredWorkspaceValue {
  key: string;
  hash: string;
  reason: 'restricted' | 'unconfirmed' | 'declined';
}

export interface TrustResolution {
  /** What the settings validator reads: the values this window may use. */
  effective(key: string): unknown;
  /** The same, from user settings and defaults only. */
  userLevel(key: string): unknown;
  /** Whether the workspace (or a folder) sets this key at all. */
  setByWorkspace(key: string): boolean;
  questions: WorkspaceValueQuestion[];
  ignored: IgnoredWorkspaceValue[];
}

/**
 * Resolves `keys` from their layers: unrestricted keys as VS Code would; restricted keys without the workspace
 * layers in Restricted Mode (VS Code drops them too; this does not rely on it); confirmed keys from the workspace
 * only when `answer` says so, else from user settings, with a question for values nobody answered yet.
 */
export function resolveSettingTrust(
  keys: readonly string[],
  layersOf: (key: string) => SettingLayers | undefined,
  o: { trusted: boolean; answer(key: ConfirmedSetting, hash: string): Answer },
): TrustResolution {
  const effective = new Map<string, unknown>();
  const user = new Map<string, unknown>();
  const fromWorkspace = new Set<string>();
  const questions: WorkspaceValueQuestion[] = [];
  const ignored: IgnoredWorkspaceValue[] = [];
  for (const key of keys) {
    const layers = layersOf(key);
    const full = layeredValue(layers, true);
    const userValue = layeredValue(layers, false).value;
    user.set(key, userValue);
    const workspaceOrigin = full.origin === 'workspace' || full.origin === 'workspaceFolder' ? full.origin : undefined;
    if (workspaceOrigin) fromWorkspace.add(key);
    if (!workspaceOrigin || !(RESTRICTED_SETTINGS as readonly string[]).includes(key)) {
      effective.set(key, full.value);
      continue;
    }
    const hash = valueHash(key, full.value);
    if (!o.trusted) {
      effective.set(key, userValue);
      ignored.push({ key, hash, reason: 'restricted' });
      continue;
    }
    const confirmed = (CONFIRMED_SETTINGS as readonly string[]).includes(key) ? (key as ConfirmedSetting) : undefined;
    if (!confirmed || isHarmless(confirmed, full.value) || canonicalJson(full.value) === canonicalJson(userValue)) {
      effective.set(key, full.value);
      continue;
    }
    const answer = o.answer(confirmed, hash);
    if (answer === 'confirmed') {
      effective.set(key, full.value);
      continue;
    }
    effective.set(key, userValue);
    ignored.push({ key, hash, reason: answer === 'declined' ? 'declined' : 'unconfirmed' });
    if (answer === 'unanswered') questions.push({ key: confirmed, value: full.value, hash, origin: workspaceOrigin });
  }
  return {
    effective: (key) => effective.get(key),
    userLevel: (key) => user.get(key),
    setByWorkspace: (key) => fromWorkspace.has(key),
    questions,
    ignored,
  };
}

const STRICTNESS: Record<ApprovalMode, number> = { allowAll: 0, allowReadOnly: 1, ask: 2 };
const stricter = (a: ApprovalMode, b: ApprovalMode): ApprovalMode => (STRICTNESS[a] >= STRICTNESS[b] ? a : b);

type Approvals = ValidatedSettings['approvals'];

/**
 * A trusted workspace's approval settings, but never looser than the user's: per tool kind the stricter of the
 * two modes applies. `loosened` names the kinds (or `policy`) where the workspace asked for more than it got.
 */
export function tightenApprovals(userLevel: Approvals, withWorkspace: Approvals): { approvals: Approvals; loosened: string[] } {
  const loosened: string[] = [];
  const policy = stricter(userLevel.policy, withWorkspace.policy);
  if (policy !== withWorkspace.policy) loosened.push('policy');
  const byKind: Partial<Record<ToolKind, ApprovalMode>> = {};
  for (const kind of TOOL_KINDS) {
    const wanted = approvalModeFor(withWorkspace, kind);
    const mode = stricter(approvalModeFor(userLevel, kind), wanted);
    if (mode !== wanted) loosened.push(kind);
    if (mode !== policy) byKind[kind] = mode;
  }
  // The approval timeout is not a restricted setting (it loosens nothing): the workspace's effective value stands.
  return { approvals: { policy, byKind, timeoutSeconds: withWorkspace.timeoutSeconds }, loosened: [...new Set(loosened)] };
}

type Tasks = ValidatedSettings['tasks'];
/** The task caps (below `vigil.tasks.`): a workspace may lower them, never raise them. */
export const TASK_CAP_SETTINGS = ['maxRunningPerSession', 'maxRunningPerWindow'] as const;

/**
 * A workspace's task settings, but with caps never above the user's: a repository cannot let its agent run more
 * commands at once than the person allows. `raised` names the caps where the workspace asked for more.
 */
export function lowerTaskCaps(userLevel: Tasks, withWorkspace: Tasks): { tasks: Tasks; raised: string[] } {
  const tasks = { ...withWorkspace };
  const raised: string[] = [];
  for (const key of TASK_CAP_SETTINGS) {
    if (withWorkspace[key] <= userLevel[key]) continue;
    tasks[key] = userLevel[key];
    raised.push(key);
  }
  return { tasks, raised };
}

/**
 * The person's answers per setting value: confirmations persist (bounded, most recent first) in a store the
 * caller provides (per workspace); declines last for this window only, so a reload asks again.
 */
export class ConfirmationLedger {
  private readonly declined = new Set<string>();
  /** Confirmed in this window: holds even when storing the confirmation failed. */
  private readonly confirmedHere = new Set<string>();

  constructor(
    private readonly store: { read(): unknown; write(entries: string[]): PromiseLike<void> },
    private readonly max = 64,
  ) {}

  answer(key: ConfirmedSetting, hash: string): Answer {
    const id = `${key}:${hash}`;
    if (this.confirmedHere.has(id) || this.entries().includes(id)) return 'confirmed';
    return this.declined.has(id) ? 'declined' : 'unanswered';
  }

  async confirm(key: ConfirmedSetting, hash: string): Promise<void> {
    const id = `${key}:${hash}`;
    this.declined.delete(id);
    this.confirmedHere.add(id);
    await this.store.write([id, ...this.entries().filter((e) => e !== id)].slice(0, this.max));
  }

  decline(key: ConfirmedSetting, hash: string): void {
    this.declined.add(`${key}:${hash}`);
  }

  /** Stored entries; anything malformed read back from storage is dropped. */
  private entries(): string[] {
    const raw = this.store.read();
    return Array.isArray(raw) ? raw.filter((e): e is string => typeof e === 'string' && /^[\w.]+:[0-9a-f]{64}$/.test(e)) : [];
  }
}

/** What the person reads in the log and the notification after declining, including how to change it. */
export function declinedText(key: ConfirmedSetting): string {
  if (key === 'mcpServers') {
    return "this workspace's vigil.mcpServers was not confirmed, so only your own MCP servers (none unless you set some) are given to agents in this window. To use the workspace's servers, reload the window and confirm them; to stop being asked, remove vigil.mcpServers from the workspace settings.";
  }
  return key === 'agent'
    ? "this workspace's vigil.agent was not confirmed, so your own setting (the built-in agent unless you set another) serves this window. To use the workspace's agent, reload the window and confirm it; to stop being asked, remove vigil.agent from the workspace settings."
    : "this workspace's vigil.model.baseUrl was not confirmed, so your own endpoint setting is used in this window. To use the workspace's endpoint, reload the window and confirm it; to stop being asked, remove vigil.model.baseUrl from the workspace settings.";
}

/** The modal's text: the exact value, and what using it means. */
export function describeQuestion(question: WorkspaceValueQuestion): { message: string; detail: string; accept: string } {
  const where = question.origin === 'workspaceFolder' ? "This workspace folder's settings" : "This workspace's settings (.vscode/settings.json)";
  if (question.key === 'agent') {
    const value = typeof question.value === 'object' && question.value !== null ? (question.value as { command?: unknown; args?: unknown; env?: unknown }) : {};
    const args = Array.isArray(value.args) ? value.args : [];
    const envKeys = typeof value.env === 'object' && value.env !== null ? Object.keys(value.env) : [];
    return {
      message: 'Run the agent program chosen by this workspace?',
      detail: [
        `${where} set vigil.agent to run:`,
        '',
        `command: ${JSON.stringify(value.command)}`,
        `arguments: ${args.length > 0 ? args.map((a) => JSON.stringify(a)).join(' ') : '(none)'}`,
        `environment variables: ${envKeys.length > 0 ? envKeys.join(', ') : '(none)'}`,
        '',
        'Using it means Vigil starts this program on your computer, with your permissions, whenever a session needs an agent. Allow it only if you know what it is.',
        'Your answer is remembered for this workspace and this exact value; a changed value asks again.',
      ].join('\n'),
      accept: 'Run This Agent',
    };
  }
  if (question.key === 'mcpServers') {
    const { servers } = validateMcpServers(question.value);
    return {
      message: 'Start the MCP servers chosen by this workspace?',
      detail: [
        `${where} set vigil.mcpServers to:`,
        '',
        ...servers.map(describeMcpServer),
        '',
        'Using them means every agent of this window is told to start these programs (with your permissions) or to connect to these addresses, and may send them what it works on. Allow them only if you know what they are.',
        'Your answer is remembered for this workspace and this exact value; a changed value asks again.',
      ].join('\n'),
      accept: 'Use These Servers',
    };
  }
  return {
    message: 'Send model requests to the endpoint chosen by this workspace?',
    detail: [
      `${where} set vigil.model.baseUrl to:`,
      '',
      String(question.value),
      '',
      'Using it means your stored API key and your conversation (including file contents the agent reads) are sent to that address. Allow it only if you know who runs it.',
      'Your answer is remembered for this workspace and this exact value; a changed value asks again.',
    ].join('\n'),
    accept: 'Use This Endpoint',
  };
}

/** One line for the log. */
export function summarizeValue(question: WorkspaceValueQuestion): string {
  if (question.key === 'model.baseUrl') return String(question.value);
  if (question.key === 'mcpServers') return validateMcpServers(question.value).servers.map(describeMcpServer).join('; ');
  const value = question.value as { command?: unknown; args?: unknown };
  return [value.command, ...(Array.isArray(value.args) ? value.args : [])].map(String).join(' ');
}
