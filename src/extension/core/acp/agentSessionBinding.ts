// Which agent session a Vigil session continues in: the agent's session id, the launch it belongs to
// and what that agent said it can do with it. Kept durably (core/store/agentSessionRecords.ts) so a
// reload, a crash or another window resumes the agent's own session instead of starting afresh.

import { createHash } from 'node:crypto';
import type { AgentCapabilities } from '@agentclientprotocol/sdk';
import type { LaunchSpec } from './agentLaunch';

export interface AgentSessionBinding {
  /** `launchIdentity` of the agent that owns the id: another agent is never asked to resume it. */
  launch: string;
  agentSessionId: string;
  /** The folder the session was opened in (its agent runs there again to delete it). */
  cwd: string;
  /**
   * Who opened the agent's session last (random per open). A live process that finds another
   * opener here holds a stale copy (another window or process continued the session) and restarts.
   */
  opener: string;
  /** What the agent advertised at that open; `delete` decides whether deleting needs its process. */
  supports: { resume: boolean; load: boolean; close: boolean; delete: boolean };
  at: number;
}

/** Where bindings are kept: durably beside the sessions, or in memory when no store is given. */
export interface AgentSessionBook {
  read(vigilSessionId: string): Promise<AgentSessionBinding | undefined>;
  write(vigilSessionId: string, binding: AgentSessionBinding): Promise<void>;
  remove(vigilSessionId: string): Promise<void>;
}

/** An agent session id Vigil keeps: ids are short tokens in every agent seen; anything else is not stored. */
export const maxAgentSessionIdLength = 512;
export function keepableAgentSessionId(id: string): boolean {
  return id.length > 0 && id.length <= maxAgentSessionIdLength && ![...id].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
}

/**
 * Which agent a launch starts: the built-in agent, or the command and its arguments (hashed: arguments
 * may hold secrets). The environment is left out on purpose: a changed API key is the same agent.
 */
export function launchIdentity(spec: Pick<LaunchSpec, 'builtin' | 'command' | 'args'>): string {
  if (spec.builtin) return 'builtin';
  return createHash('sha256').update(JSON.stringify([spec.command, spec.args])).digest('hex');
}

export function supportsOf(capabilities: AgentCapabilities | undefined): AgentSessionBinding['supports'] {
  const s = capabilities?.sessionCapabilities;
  return { resume: !!s?.resume, load: !!capabilities?.loadSession, close: !!s?.close, delete: !!s?.delete };
}

/** The book of a provider that was given no store: bindings live as long as the window. */
export function memoryBook(): AgentSessionBook {
  const bindings = new Map<string, AgentSessionBinding>();
  return {
    read: async (id) => bindings.get(id),
    write: async (id, binding) => void bindings.set(id, binding),
    remove: async (id) => void bindings.delete(id),
  };
}
