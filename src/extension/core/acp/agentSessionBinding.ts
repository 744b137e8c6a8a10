// Which agent session a Vigil session continues in: the agent's session id, the launch it belongs to
// and what that agent said it can do with it. Kept durably (core/store/agentSessionRecords.ts) so a
// reload, a crash or another window resumes the agent's own session instead of starting afresh.

import { createHash } from 'node:crypto';
import type { AgentCapabilities } from '@agentclientprotocol/sdk';
import type { LaunchSpec } from './agentLaunch';
import type { AgentSessionBinding, AgentSessionBook } from '../store/agentSessionRecords';

// The binding's shape is the store's record (core/store/agentSessionRecords.ts); named here too for the ACP client.
export type { AgentSessionBinding, AgentSessionBook };
export { keepableAgentSessionId } from '../store/agentSessionRecords';

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
