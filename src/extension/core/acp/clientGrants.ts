// Which client-side operations (terminal/create, fs/write_text_file) an answered permission request
// covers, so an agent that asked is not asked twice and one approval is never spent twice.
// The rule itself is documented in permissionGate.ts.

import { isAbsolute, relative, resolve, sep } from 'node:path';
import { commandLineOf } from '../tasks/shellCommand';

/** A client-side operation Vigil serves for the agent, as the approvals policy sees it. */
export type ClientOp =
  | { kind: 'execute'; commandLine: string; cwd: string; cwdInside: boolean; cwdMissing?: boolean; background: boolean; envNames: string[] }
  | { kind: 'edit'; path: string; shown?: string };

export type ClientOpKind = ClientOp['kind'];

/** What a tool call says it will run or write, from its `rawInput` and `locations`. */
export interface ToolCallTargets {
  commands: string[];
  paths: string[];
}

interface OnceGrant {
  kind: ClientOpKind;
  /** Commands or paths still covered; empty means "one operation of this kind, whatever it is". */
  targets: Set<string>;
}

export interface ToolCallLike {
  kind?: string | null;
  rawInput?: unknown;
  locations?: Array<{ path: string }> | null;
}

const opKindOfTool: Record<string, ClientOpKind | undefined> = { execute: 'execute', edit: 'edit' };

export class GrantLedger {
  private once: OnceGrant[] = [];
  private readonly always = new Set<ClientOpKind>();

  constructor(private readonly root: string) {}

  /** Records an allowed permission request; `always` when the selected option was `allow_always`. */
  record(toolCall: ToolCallLike, always: boolean): void {
    const kind = opKindOfTool[toolCall.kind ?? ''];
    if (!kind) return;
    if (always) {
      this.always.add(kind);
      return;
    }
    const targets = targetsOf(toolCall, this.root);
    this.once.push({ kind, targets: new Set(kind === 'execute' ? targets.commands : targets.paths) });
  }

  grantAlways(kind: ClientOpKind): void {
    this.always.add(kind);
  }

  /** True when a recorded approval covers `op`; a once-approval is spent by the first operation it covers. */
  take(op: ClientOp): boolean {
    if (this.always.has(op.kind)) return true;
    const key = op.kind === 'execute' ? normalizeCommand(op.commandLine) : resolve(op.path);
    // A grant that names this exact command or path first, so an unspecific grant is not wasted on it.
    const exact = this.once.find((g) => g.kind === op.kind && g.targets.has(key));
    if (exact) {
      exact.targets.delete(key);
      if (exact.targets.size === 0) this.drop(exact);
      return true;
    }
    const loose = this.once.find((g) => g.kind === op.kind && g.targets.size === 0);
    if (loose) {
      this.drop(loose);
      return true;
    }
    return false;
  }

  /** The turn is over: its once-approvals expire; "always" lasts for the session. */
  endTurn(): void {
    this.once = [];
  }

  private drop(grant: OnceGrant): void {
    this.once = this.once.filter((g) => g !== grant);
  }
}

/** Commands from `rawInput.command`/`cmd` (string or argv), paths from `locations` and `rawInput.path`-like fields. */
export function targetsOf(toolCall: ToolCallLike, root: string): ToolCallTargets {
  const raw = toolCall.rawInput && typeof toolCall.rawInput === 'object' && !Array.isArray(toolCall.rawInput) ? (toolCall.rawInput as Record<string, unknown>) : {};
  const commands: string[] = [];
  for (const field of ['command', 'cmd', 'commandLine']) {
    const value = raw[field];
    if (typeof value === 'string' && value.trim()) commands.push(normalizeCommand(value));
    // An argv names words, quoted as the shell will get them (the same form terminal/create's command and args take).
    else if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) commands.push(normalizeCommand(commandLineOf(value[0] as string, value.slice(1) as string[])));
  }
  const paths = new Set<string>();
  const addPath = (value: unknown) => {
    if (typeof value === 'string' && value.trim() && !value.includes('\0')) paths.add(isAbsolute(value) ? resolve(value) : resolve(root, value));
  };
  for (const field of ['path', 'file_path', 'filePath', 'abs_path']) addPath(raw[field]);
  for (const location of Array.isArray(toolCall.locations) ? toolCall.locations : []) addPath((location as { path?: unknown } | null)?.path);
  return { commands: [...new Set(commands)], paths: [...paths] };
}

export function normalizeCommand(commandLine: string): string {
  return commandLine.trim().replace(/\s+/g, ' ');
}

/**
 * Text an agent chose, made safe to show in a question: control, bidi and zero-width characters are
 * shown escaped (a newline cannot push the dangerous half out of sight), and a long text keeps its
 * start and its end.
 */
export function shown(text: string, max = 300): string {
  // eslint-disable-next-line no-control-regex
  const visible = text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, (ch) => {
    if (ch === '\n') return '\\n';
    if (ch === '\t') return '\\t';
    if (ch === '\r') return '\\r';
    return `\\u{${ch.codePointAt(0)!.toString(16)}}`;
  });
  if (visible.length <= max) return visible;
  const tail = Math.floor(max / 3);
  return `${visible.slice(0, max - tail)} … (${visible.length - max} characters left out) … ${visible.slice(-tail)}`;
}

/** The question Vigil asks about an operation: what will run where, or which file is written. */
export function describeOp(op: ClientOp): string {
  if (op.kind === 'edit') return `write ${shown(op.shown ?? op.path)}`;
  const where = op.cwdMissing ? `${shown(op.cwd)} (outside the workspace: this folder does not exist)` : op.cwdInside ? shown(op.cwd) : `${shown(op.cwd)} (outside the workspace)`;
  const env = op.envNames.length > 0 ? ` with environment ${shown(op.envNames.join(', '), 120)}` : '';
  return `run ${op.background ? 'in the background ' : ''}\`${shown(op.commandLine)}\` in ${where}${env}`;
}

/**
 * The agent's own title for a permission request, plus what Vigil will hold the approval to when the
 * title does not already say it (files inside the workspace by their relative path).
 */
export function describePermission(title: string, targets: ToolCallTargets, root: string): string {
  const base = shown(title);
  const named = (text: string) => base.includes(shown(text));
  const extra = [
    ...targets.commands.filter((c) => !named(c)).map((c) => `command: ${shown(c)}`),
    ...targets.paths.map((p) => displayPath(p, root)).filter((p) => !named(p)).map((p) => `file: ${shown(p)}`),
  ];
  return extra.length > 0 ? `${base} (${extra.slice(0, 5).join('; ')}${extra.length > 5 ? `; ${extra.length - 5} more` : ''})` : base;
}

function displayPath(abs: string, root: string): string {
  const rel = relative(root, abs);
  return rel && !isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`) ? rel : abs;
}
