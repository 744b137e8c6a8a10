// Sign-in for third-party ACP agents, without VS Code: the agent's `authMethods` parsed and checked,
// auth errors recognised, the SecretStorage key scheme for env-var credentials, and the "send again" state.

// No ACP SDK import here: the VS Code side (agentSignIn.ts) uses this module from the activation bundle.
import { createHash } from 'node:crypto';

/** ACP's `auth_required` error code. */
export const authRequiredCode = -32000;

export interface EnvVarSpec {
  name: string;
  /** Shown in the input box; the agent's own words when it gave any. */
  label?: string;
  optional: boolean;
}

/** A login command to run in a terminal: the agent's own invocation with extra args, or Copilot's `_meta["terminal-auth"]`. */
export interface TerminalLogin {
  /** Undefined: the agent's own command. */
  command?: string;
  args: string[];
  env: Record<string, string>;
  label?: string;
}

export type AgentAuthMethod =
  | { kind: 'agent'; id: string; name: string; description?: string; terminal?: TerminalLogin }
  | { kind: 'envVar'; id: string; name: string; description?: string; vars: EnvVarSpec[] }
  | { kind: 'terminal'; id: string; name: string; description?: string; terminal: TerminalLogin };

/** What the last `initialize` of an agent said about signing in. */
export interface AgentAuthInfo {
  label: string;
  methods: AgentAuthMethod[];
  logout: boolean;
  /** `agentIdentity` of its command and arguments: the key of its stored credentials. */
  identity: string;
  builtin: boolean;
}

const limits = { methods: 20, vars: 10, text: 300, id: 200, args: 50, arg: 2_000, env: 30 } as const;
const envName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Variables a login must never set: they change what runs or how, not who is signed in. */
const reservedEnv = new Set(['PATH', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'DYLD_INSERT_LIBRARIES', 'NODE_OPTIONS', 'ELECTRON_RUN_AS_NODE', 'HOME', 'SHELL', 'BASH_ENV', 'ENV']);

const record = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** Printable text, one line, bounded: agent-chosen names reach quick picks and notifications. */
function text(v: unknown, max: number = limits.text): string | undefined {
  if (typeof v !== 'string') return undefined;
  // eslint-disable-next-line no-control-regex
  const clean = v.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim();
  if (!clean) return undefined;
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

function envOf(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const r = record(v);
  if (!r) return out;
  for (const [name, value] of Object.entries(r).slice(0, limits.env)) {
    if (envName.test(name) && !reservedEnv.has(name.toUpperCase()) && typeof value === 'string' && value.length <= limits.arg && !value.includes('\0')) out[name] = value;
  }
  return out;
}

function argsOf(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.length > limits.args) return undefined;
  if (!v.every((a) => typeof a === 'string' && a.length <= limits.arg && !a.includes('\0'))) return undefined;
  return v as string[];
}

/** Copilot's `_meta["terminal-auth"]`: `{ command, args, label, env? }`. */
function metaTerminal(meta: unknown): TerminalLogin | undefined {
  const t = record(record(meta)?.['terminal-auth']);
  if (!t) return undefined;
  const command = typeof t.command === 'string' && t.command.length > 0 && t.command.length <= limits.arg && !t.command.includes('\0') ? t.command : undefined;
  const args = argsOf(t.args);
  if (!command || !args) return undefined;
  return { command, args, env: envOf(t.env), label: text(t.label) };
}

/**
 * The agent's `authMethods`, checked: unknown types, malformed entries and duplicates are dropped
 * (one bad entry does not hide the good ones), every string is bounded and made printable.
 */
export function parseAuthMethods(raw: unknown): AgentAuthMethod[] {
  if (!Array.isArray(raw)) return [];
  const seen = new Set<string>();
  const out: AgentAuthMethod[] = [];
  for (const entry of raw.slice(0, limits.methods * 2)) {
    const m = record(entry);
    const id = typeof m?.id === 'string' && m.id.length > 0 && m.id.length <= limits.id ? m.id : undefined;
    if (!m || !id || seen.has(id)) continue;
    const name = text(m.name) ?? text(id) ?? 'Sign in';
    const description = text(m.description);
    const type = m.type ?? 'agent';
    let method: AgentAuthMethod | undefined;
    if (type === 'agent') {
      const terminal = metaTerminal(m._meta);
      method = { kind: 'agent', id, name, description, ...(terminal ? { terminal } : {}) };
    } else if (type === 'env_var') {
      const vars: EnvVarSpec[] = [];
      for (const v of Array.isArray(m.vars) ? m.vars.slice(0, limits.vars) : []) {
        const r = record(v);
        if (!r || typeof r.name !== 'string' || !envName.test(r.name) || reservedEnv.has(r.name.toUpperCase())) continue;
        if (vars.some((x) => x.name === r.name)) continue;
        vars.push({ name: r.name, label: text(r.label) ?? text(r.description), optional: r.optional === true });
      }
      if (vars.length > 0) method = { kind: 'envVar', id, name, description, vars };
    } else if (type === 'terminal') {
      const args = argsOf(m.args);
      if (args) method = { kind: 'terminal', id, name, description, terminal: { args, env: envOf(m.env) } };
    }
    if (!method) continue;
    seen.add(id);
    out.push(method);
    if (out.length >= limits.methods) break;
  }
  return out;
}

/** What the agent's `initialize` answer says about signing in. */
export function authInfoOf(command: string, args: readonly string[], initialize: { authMethods?: unknown; agentCapabilities?: unknown; agentInfo?: unknown } | undefined): Omit<AgentAuthInfo, 'identity' | 'builtin'> {
  const caps = record(initialize?.agentCapabilities);
  const auth = record(caps?.auth);
  const info = record(initialize?.agentInfo);
  // The agent's own name ("Codex") reads better than a path; the command is the fallback.
  const label = text(info?.title, 60) ?? text(info?.name, 60) ?? shortCommand(command, args);
  return { label, methods: parseAuthMethods(initialize?.authMethods), logout: auth !== undefined && record(auth.logout) !== undefined };
}

/** `codex-acp --profile x` rather than `/home/me/.../node_modules/.bin/codex-acp --profile x`. */
export function shortCommand(command: string, args: readonly string[]): string {
  const base = command.split(/[\\/]/).pop() || command;
  return text([base, ...args].join(' '), 80) ?? 'the agent';
}

/** The words agents really use when they need credentials (codex-acp, Gemini CLI, Claude, Copilot). */
const authWords = /\b(?:auth(?:entication)? required|not (?:logged|signed) in|(?:please )?(?:log|sign) ?in\b|api key (?:is )?(?:missing|not (?:set|found|configured))|missing api key|invalid api key|unauthori[sz]ed|no credentials|credentials? (?:not found|missing))/i;

/** Whether an agent's error means "sign in first": ACP `auth_required`, or its usual wording. */
export function isAuthError(error: unknown): boolean {
  // Structural: a JSON-RPC error (the SDK's RequestError) carries its numeric code.
  if (error instanceof Error && (error as { code?: unknown }).code === authRequiredCode) return true;
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  return authWords.test(message.slice(0, 2_000));
}

/**
 * Who an agent is, for its stored credentials: its command and arguments (not its environment,
 * which holds the credentials). A different agent never sees another's keys.
 */
export function agentIdentity(command: string, args: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify([command, ...args])).digest('hex').slice(0, 32);
}

const secretPrefix = 'vigil.agentAuth';

/** SecretStorage key of one variable of one agent. */
export function envSecretKey(identity: string, variable: string): string {
  if (!envName.test(variable)) throw new Error(`"${variable.slice(0, 60)}" is not an environment variable name`);
  return `${secretPrefix}.${identity}.env.${variable}`;
}

/** SecretStorage key of the record listing what is stored for an agent (so sign-out can forget it all). */
export function authIndexKey(identity: string): string {
  return `${secretPrefix}.${identity}.index`;
}

/** What is stored for one agent: the variables set, and the env-var method to `authenticate` with at every start. */
export interface StoredAgentAuth {
  vars: string[];
  methodId?: string;
}

export function parseStoredAuth(raw: string | undefined): StoredAgentAuth {
  try {
    const r = record(raw ? JSON.parse(raw) : undefined);
    const vars = Array.isArray(r?.vars) ? (r.vars as unknown[]).filter((v): v is string => typeof v === 'string' && envName.test(v)).slice(0, limits.vars * 4) : [];
    const methodId = typeof r?.methodId === 'string' && r.methodId.length <= limits.id ? r.methodId : undefined;
    return { vars: [...new Set(vars)], ...(methodId ? { methodId } : {}) };
  } catch {
    return { vars: [] };
  }
}

/** Reads a stored secret by key (SecretStorage in the extension, a map in tests). */
export interface SecretReader {
  get(key: string): PromiseLike<string | undefined>;
}

/** The stored credentials of an agent: env values to pass at launch, and the method to authenticate with. */
export async function storedAgentEnv(secrets: SecretReader, identity: string): Promise<{ env: Record<string, string>; methodId?: string }> {
  const index = parseStoredAuth(await secrets.get(authIndexKey(identity)));
  const env: Record<string, string> = {};
  for (const name of index.vars) {
    const value = await secrets.get(envSecretKey(identity, name));
    if (value !== undefined && value !== '') env[name] = value;
  }
  return { env, methodId: index.methodId };
}

/** How to run a terminal login: the agent's own invocation plus the method's args, or the command Copilot/OpenCode name. */
export function terminalCommand(agent: { command: string; args: readonly string[]; env: NodeJS.ProcessEnv }, login: TerminalLogin): { command: string; args: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(agent.env)) if (typeof value === 'string') env[name] = value;
  Object.assign(env, login.env);
  return login.command !== undefined ? { command: login.command, args: [...login.args], env } : { command: agent.command, args: [...agent.args, ...login.args], env };
}

/** The prompt of a turn that failed for want of sign-in, kept so it can be sent again afterwards. */
export class SignInRetry {
  private readonly pending = new Map<string, string>();

  constructor(private readonly max = 50) {}

  remember(sessionId: string, text: string): void {
    this.pending.delete(sessionId);
    this.pending.set(sessionId, text);
    while (this.pending.size > this.max) this.pending.delete(this.pending.keys().next().value as string);
  }

  /** The text to send again (once): taken, so a second sign-in does not send it twice. */
  take(sessionId: string): string | undefined {
    const text = this.pending.get(sessionId);
    this.pending.delete(sessionId);
    return text;
  }

  has(sessionId: string): boolean {
    return this.pending.has(sessionId);
  }

  forget(sessionId: string): void {
    this.pending.delete(sessionId);
  }
}
