// Restricted Mode and a third-party agent. An agent of the person's own `vigil.agent` runs its own shell and file
// tools, which Vigil's boundary never sees: in a folder the person has not trusted it starts only after they agreed
// for that folder (and that agent); else the built-in agent serves, which writes and runs commands only through
// Vigil, and Vigil refuses both in Restricted Mode. Consents persist in Vigil's own storage (never in a setting a
// repository could write), bounded; "Not now" holds for this window only.

import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { CustomAgentSettings } from '../acp/agentLaunch';
import { shown } from '../acp/clientGrants';

export type AgentConsent = 'allowed' | 'declined' | 'unanswered';

/**
 * What serves a session: `builtin` (no third-party agent set), `agent` (trusted folder: as configured),
 * `agentReadOnlyMode` (Restricted Mode, allowed: the agent, started in its read-only or plan mode where it has one),
 * `builtinReadOnly` (Restricted Mode, not allowed) or `ask` (Restricted Mode, nobody answered for this folder yet).
 */
export type RestrictedChoice = 'builtin' | 'agent' | 'agentReadOnlyMode' | 'builtinReadOnly' | 'ask';

export function restrictedChoice(o: { trusted: boolean; thirdParty: boolean; consent: AgentConsent }): RestrictedChoice {
  if (!o.thirdParty) return 'builtin';
  if (o.trusted) return 'agent';
  return o.consent === 'allowed' ? 'agentReadOnlyMode' : o.consent === 'declined' ? 'builtinReadOnly' : 'ask';
}

/** Which agent a consent is for: its command and arguments, hashed (arguments may hold a token; nothing of them is stored). */
export function agentConsentId(agent: Pick<CustomAgentSettings, 'command' | 'args'>): string {
  return createHash('sha256').update(JSON.stringify([agent.command, ...(agent.args ?? [])])).digest('hex');
}

interface StoredConsent {
  folder: string;
  agent: string;
  at: number;
}

const folderMax = 4_096;

function isStoredConsent(v: unknown): v is StoredConsent {
  const e = v as Partial<StoredConsent> | null;
  return typeof e === 'object' && e !== null && typeof e.folder === 'string' && e.folder.length > 0 && e.folder.length <= folderMax &&
    typeof e.agent === 'string' && /^[0-9a-f]{64}$/.test(e.agent) && typeof e.at === 'number' && Number.isFinite(e.at);
}

/** The person's answers per folder and agent: allowances stored (most recent first, at most `max`), declines per window. */
export class AgentConsentBook {
  private readonly declined = new Set<string>();
  /** Allowed in this window: holds even when storing the allowance failed. */
  private readonly allowedHere = new Set<string>();

  constructor(
    private readonly store: { read(): unknown; write(entries: StoredConsent[]): PromiseLike<void> },
    private readonly now: () => number = Date.now,
    private readonly max = 256,
  ) {}

  consent(folder: string, agent: string): AgentConsent {
    const id = key(folder, agent);
    if (this.declined.has(id)) return 'declined';
    if (this.allowedHere.has(id) || this.entries().some((e) => e.folder === folder && e.agent === agent)) return 'allowed';
    return 'unanswered';
  }

  async allow(folder: string, agent: string): Promise<void> {
    const id = key(folder, agent);
    this.declined.delete(id);
    this.allowedHere.add(id);
    const rest = this.entries().filter((e) => !(e.folder === folder && e.agent === agent));
    await this.store.write([{ folder, agent, at: this.now() }, ...rest].slice(0, this.max));
  }

  /** "Not now": the built-in agent serves this folder in this window; an earlier allowance of this agent is taken back. */
  async decline(folder: string, agent: string): Promise<void> {
    const id = key(folder, agent);
    this.allowedHere.delete(id);
    this.declined.add(id);
    const entries = this.entries();
    const rest = entries.filter((e) => !(e.folder === folder && e.agent === agent));
    if (rest.length !== entries.length) await this.store.write(rest);
  }

  /** Forgets every answer for `folder` (any agent, stored or of this window): the next start there asks again. */
  async forget(folder: string): Promise<boolean> {
    let had = false;
    for (const set of [this.declined, this.allowedHere]) {
      for (const id of [...set]) if (id.startsWith(`${folder}\n`)) had = set.delete(id) || had;
    }
    const entries = this.entries();
    const rest = entries.filter((e) => e.folder !== folder);
    if (rest.length !== entries.length) {
      await this.store.write(rest);
      had = true;
    }
    return had;
  }

  /** Folders with a stored allowance. */
  allowedFolders(): string[] {
    return [...new Set([...this.entries().map((e) => e.folder), ...[...this.allowedHere].map((id) => id.slice(0, id.indexOf('\n')))])];
  }

  /** Stored entries; anything malformed read back from storage is dropped. */
  private entries(): StoredConsent[] {
    const raw = this.store.read();
    return Array.isArray(raw) ? raw.filter(isStoredConsent) : [];
  }
}

function key(folder: string, agent: string): string {
  return `${folder}\n${agent}`;
}

/** The agent as the person knows it: its command's name (never its arguments or environment), safe to show. */
export function agentName(command: string): string {
  return shown(path.basename(command) || command, 80);
}

export interface ConsentQuestion {
  message: string;
  detail: string;
  allow: string;
  notNow: string;
}

/** The modal's text: which agent, in which folder, and what it can do there that Vigil does not control. */
export function consentQuestion(o: { command: string; folder: string }): ConsentQuestion {
  const name = agentName(o.command);
  return {
    message: `Let ${name} work in this folder in Restricted Mode?`,
    detail: [
      `You have not trusted ${shown(o.folder, 300)}. Your setting vigil.agent starts ${shown(o.command, 300)} (${name}).`,
      '',
      `${name} runs its own tools, outside Vigil's control: it can run commands and read and write files anywhere you can, and the files of this folder may steer what it does. Vigil cannot confine it; it only refuses what the agent asks Vigil to do.`,
      `Where ${name} offers a read-only or plan mode, Vigil starts it in that mode; keeping to it is up to ${name}.`,
      '',
      "Not now: Vigil's built-in agent answers instead, read-only (Vigil refuses its writes and commands).",
      `Allowing is remembered for this folder and this agent; "Change…" in the session view or "Vigil: Forget Agent Consent for This Folder" takes it back.`,
    ].join('\n'),
    allow: 'Allow',
    notNow: 'Not now',
  };
}

/** The session view's one line while Restricted Mode decides the agent, and its longer explanation. */
export function restrictedLine(choice: 'agentReadOnlyMode' | 'builtinReadOnly', command: string): { text: string; detail: string } {
  const name = agentName(command);
  if (choice === 'builtinReadOnly') {
    return {
      text: 'Restricted Mode: the built-in agent answers, read-only.',
      detail: `This folder is not trusted and ${name} was not allowed here, so Vigil's built-in agent answers; Vigil refuses its writes and commands. Change… lets ${name} work here; trusting the folder lifts Restricted Mode.`,
    };
  }
  return {
    text: `Restricted Mode: ${name} works outside Vigil's control.`,
    detail: `You allowed ${name} in this untrusted folder: it runs commands and reads and writes files with its own tools, which Vigil cannot confine (it started in its read-only or plan mode where it has one). Change… takes the allowance back.`,
  };
}
