// How Vigil's task server reaches one agent: not at all for the built-in agent (it uses ACP client
// terminals), stdio when the agent takes it, streamable HTTP for agents that take only HTTP, or not at all,
// with the reason the session header shows. Pure.

import type { AgentCapabilities } from '@agentclientprotocol/sdk';

export type TaskServerChoice = { kind: 'builtin' } | { kind: 'stdio' } | { kind: 'http' } | { kind: 'none'; reason: string };

/**
 * Agents known to refuse stdio MCP servers a client passes (stdio is mandatory in ACP, so no capability says
 * so): GitHub Copilot CLI, which only logs the refusal in its own log.
 */
export function rejectsStdioMcp(agentCommand: string | undefined): boolean {
  if (!agentCommand) return false;
  const program = agentCommand.trim().split(/\s+/)[0] ?? '';
  const base = program.split(/[\\/]/).pop() ?? '';
  return /^copilot(\.exe|\.cmd)?$/i.test(base) || /(^|\s)@github\/copilot(@\S*)?(\s|$)/.test(agentCommand);
}

export const OFFER_SETTING = 'vigil.tasks.offerToAgents';

export function chooseTaskServer(o: { offer: boolean; builtin: boolean; agentCommand?: string; capabilities?: AgentCapabilities }): TaskServerChoice {
  if (o.builtin) return { kind: 'builtin' };
  if (!o.offer) return { kind: 'none', reason: `Background wakeups are unavailable for this agent: ${OFFER_SETTING} is off, so it runs commands itself and is not woken when they finish.` };
  if (!rejectsStdioMcp(o.agentCommand)) return { kind: 'stdio' };
  if (o.capabilities?.mcpCapabilities?.http) return { kind: 'http' };
  return { kind: 'none', reason: 'Background wakeups are unavailable for this agent: it takes neither stdio nor HTTP MCP servers from Vigil, so it runs commands itself and is not woken when they finish.' };
}
