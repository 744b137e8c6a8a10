// Starts one agent process (the host's child, or behind the relay) and its ACP connection.

import { errorMessage } from '../common/errors';
import { AcpConnection } from './acpConnection';
import type { AcpHandleDeps } from './acpHandleDeps';
import type { LaunchSpec } from './agentLaunch';
import { AgentProcess, type AgentChannel } from './agentProcess';
import type { AgentSessionState } from './agentSessionState';
import { agentFailure } from './agentStartFailure';
import type { ElicitationHost } from './elicitationHost';
import type { PermissionGate } from './permissionGate';
import { StderrLog } from './stderrLog';
import { TerminalBridge } from './terminalBridge';
import { WorkspaceFs } from './workspaceFs';

export interface SpawnContext {
  sessionId: string;
  deps: AcpHandleDeps;
  gate: PermissionGate;
  agentState: AgentSessionState;
  elicitations: ElicitationHost | undefined;
}

export interface Spawned {
  proc: AgentChannel;
  connection: AcpConnection;
  terminals: TerminalBridge;
}

/**
 * Starts a process and its connection. `forSession`: the process will serve this session, so what it says
 * (options, commands, usage) is the session's, and it runs behind the relay when there is one; a process
 * started only for `initialize`/`logout`/`delete` is not, and is the host's child.
 */
export async function spawnAgent(c: SpawnContext, spec: LaunchSpec, forSession: boolean): Promise<Spawned> {
  let proc: AgentChannel;
  const relays = forSession ? c.deps.relays?.() : undefined;
  try {
    proc = relays ? await relays.start(c.sessionId, spec, c.deps.cwd, new StderrLog(spec, c.deps.log)) : await AgentProcess.start(spec, c.deps.log, c.deps.cwd);
  } catch (error) {
    // A missing or non-executable command: the fix is in the setting that names it.
    throw agentFailure('AGENT_FAILED', errorMessage(error), spec.builtin ? ['openLog'] : ['openSettings', 'openLog'], error);
  }
  return connectAgent(c, proc, spec, forSession);
}

/** The ACP connection over a running agent (just started, or taken back from its relay). */
export function connectAgent(c: SpawnContext, proc: AgentChannel, spec: LaunchSpec, forSession: boolean): Spawned {
  const { deps, agentState } = c;
  const terminals = new TerminalBridge(deps.terminals, deps.log);
  // What the previous process said (options, commands, usage) does not hold for this one.
  if (forSession) agentState.reset();
  const connection = new AcpConnection(
    proc,
    {
      vigilSessionId: c.sessionId, log: deps.log, workspace: new WorkspaceFs(deps.cwd), gate: c.gate, terminals, lm: deps.lm,
      ...(deps.edits ? { edits: deps.edits, writesThroughClient: spec.builtin } : {}),
      ...(forSession && c.elicitations ? { elicitations: c.elicitations } : {}),
      ...(forSession
        ? {
            onSessionUpdate: (_acpSessionId: string, update: Parameters<AgentSessionState['apply']>[0]) => void agentState.apply(update),
            onSessionOpened: (_acpSessionId: string, response: Parameters<AgentSessionState['opened']>[0]) => agentState.opened(response),
          }
        : {}),
    },
    () => deps.policy.isTrusted(),
  );
  return { proc, connection, terminals };
}
