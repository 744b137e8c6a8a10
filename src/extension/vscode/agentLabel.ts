// What the session header says of the agent and model the session runs with, from the settings as they are now.

import * as vscode from 'vscode';
import { chooseTaskServer } from '../core/mcp/taskServerChoice';
import type { VigilConfiguration } from './configuration';

export function agentLabel(
  config: VigilConfiguration,
  /** Why the task server cannot wake the session's agent, once it answered initialize. */
  unavailable: (sessionId: string) => string | undefined,
  sessionId?: string,
): { agent?: string; model?: string; cwd?: string; wakeups?: string; builtin?: boolean } {
  // The view resolves markdown file links against the folder; without one, no file link renders.
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const cwd = folder?.scheme === 'file' ? folder.fsPath : undefined;
  const custom = config.customAgent();
  if (custom) return { agent: [custom.command, ...(custom.args ?? [])].join(' '), cwd, wakeups: wakeupsUnavailable(config, unavailable, sessionId) };
  const { provider, name } = config.settings.model;
  const ignored = config.ignoredWorkspaceValue('agent');
  const agent = ignored === 'restricted' ? 'built-in (the workspace’s vigil.agent is ignored in Restricted Mode)' : ignored === 'declined' ? 'built-in (the workspace’s vigil.agent was not confirmed)' : 'built-in';
  return { agent, builtin: true, model: provider === 'demo' ? 'demo model' : name ? `${provider}: ${name}` : provider, cwd };
}

/** Why a third-party agent's background commands cannot wake it (the session header says so). */
function wakeupsUnavailable(config: VigilConfiguration, unavailable: (sessionId: string) => string | undefined, sessionId: string | undefined): string | undefined {
  // Off is known before any agent starts; the other reasons once the session's agent answered initialize.
  const off = chooseTaskServer({ offer: config.settings.tasks.offerToAgents, builtin: false });
  if (off.kind === 'none') return off.reason;
  return sessionId ? unavailable(sessionId) : undefined;
}
