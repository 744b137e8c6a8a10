// Opens a Vigil session's agent session in a fresh agent process: `session/resume` of the session the
// agent keeps (no replay), else `session/load` (its replay is dropped: the transcript is the record),
// else `session/new` (the built-in agent gets the history in `_meta`). Also closes and deletes it.

import { randomUUID } from 'node:crypto';
import { RequestError, type McpServer } from '@agentclientprotocol/sdk';
import type { ChatMessage } from '../../../shared/agentProtocol/history';
import { errorMessage, VigilError } from '../common/errors';
import type { Logger } from '../ports/logger';
import type { AcpConnection } from './acpConnection';
import { keepableAgentSessionId, launchIdentity, supportsOf, type AgentSessionBinding, type AgentSessionBook } from './agentSessionBinding';
import type { LaunchSpec } from './agentLaunch';
import { collectMcpServers, type McpServerSource } from './mcpServerSource';

export interface OpenRequest {
  connection: AcpConnection;
  spec: LaunchSpec;
  cwd: string;
  vigilSessionId: string;
  book: AgentSessionBook;
  /** What the built-in agent is given; for others, only whether there is an earlier conversation. */
  history: ChatMessage[];
  mcpServers: readonly McpServerSource[];
  log: Logger;
  now?: () => number;
  /** Bound on each of session/resume, load and new (default 60 s): a start never hangs on one. */
  timeoutMs?: number;
}

export interface OpenedSession {
  acpSessionId: string;
  how: 'resumed' | 'loaded' | 'new';
  /** This open's token in the binding (see AgentSessionBinding.opener); undefined when it was not recorded. */
  opener?: string;
  /** Said once to the person: the agent starts without the earlier conversation, and why. */
  notice?: string;
  /** The MCP servers the agent was given. */
  servers: McpServer[];
}

export async function openAgentSession(r: OpenRequest): Promise<OpenedSession> {
  const { connection, spec, cwd, log } = r;
  const timeoutMs = r.timeoutMs ?? 60_000;
  /** The agent's error, or that it did not answer in time (the SDK's abort reason says neither clearly). */
  const explain = (error: unknown, signal: AbortSignal, method: string) =>
    signal.aborted ? `${spec.label} did not answer "${method}" within ${timeoutMs / 1000} s` : withDetails(error);
  const capabilities = connection.initializeResponse?.agentCapabilities;
  const supports = supportsOf(capabilities);
  const launch = launchIdentity(spec);
  const stored = await r.book.read(r.vigilSessionId).catch((error: unknown) => {
    log.warn(`the agent session of ${r.vigilSessionId} could not be read (${errorMessage(error)}); starting a new one`);
    return undefined;
  });
  const mcpServers = await collectMcpServers(r.mcpServers, r.vigilSessionId, capabilities, (error) =>
    log.warn(`an MCP server source failed; the agent starts without its servers: ${errorMessage(error)}`),
  );
  /** Records the binding; the opener token when it was recorded. */
  const remember = async (agentSessionId: string): Promise<string | undefined> => {
    if (!keepableAgentSessionId(agentSessionId)) {
      log.warn(`${spec.label} named its session with an id Vigil does not keep (${agentSessionId.length} characters); it cannot be resumed later`);
      return undefined;
    }
    const opener = randomUUID();
    const binding: AgentSessionBinding = { launch, agentSessionId, cwd, opener, supports, at: (r.now ?? Date.now)() };
    try {
      await r.book.write(r.vigilSessionId, binding);
      return opener;
    } catch (error) {
      log.warn(`the agent session of ${r.vigilSessionId} could not be recorded (${errorMessage(error)}); it cannot be resumed later`);
      return undefined;
    }
  };

  // Only the agent that made the id is asked for it; the built-in agent's history is the host's, given afresh.
  const previous = !spec.builtin && stored?.launch === launch ? stored.agentSessionId : undefined;
  let notice: string | undefined;
  if (previous) {
    const way = supports.resume ? 'resume' : supports.load ? 'load' : undefined;
    if (way) {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        if (way === 'resume') await connection.resumeSession(previous, cwd, mcpServers, signal);
        else await connection.loadSession(previous, cwd, [], mcpServers, signal);
        log.info(`${spec.label} ${way === 'resume' ? 'resumed' : 'loaded'} its session ${previous} of ${r.vigilSessionId}`);
        return { acpSessionId: previous, how: way === 'resume' ? 'resumed' : 'loaded', opener: await remember(previous), servers: mcpServers };
      } catch (error) {
        const why = explain(error, signal, `session/${way}`);
        log.warn(`${spec.label} could not ${way} session ${previous}: ${why}; starting a new one`);
        notice = `${spec.label} could not ${way} its earlier session (${why.slice(0, 200)}), so it starts without the earlier conversation.`;
      }
    } else {
      notice = `${spec.label} cannot resume or load sessions, so it starts without the earlier conversation.`;
    }
  } else if (!spec.builtin && r.history.length > 0) {
    notice =
      stored && stored.launch !== launch
        ? `${spec.label} starts without the earlier conversation: it was held by another agent.`
        : `${spec.label} has no session of its own to resume here, so it starts without the earlier conversation.`;
  }
  const signal = AbortSignal.timeout(timeoutMs);
  const acpSessionId = await connection.newSession(cwd, spec.builtin ? r.history : [], mcpServers, signal).catch((error: unknown) => {
    throw signal.aborted ? new VigilError('AGENT_TIMEOUT', explain(error, signal, 'session/new'), { cause: error }) : error;
  });
  return { acpSessionId, how: 'new', opener: await remember(acpSessionId), notice, servers: mcpServers };
}

/** `session/close` where the agent supports it, bounded; failures are logged (the process is stopped next anyway). */
export async function closeAgentSession(connection: AcpConnection, acpSessionId: string, log: Logger, timeoutMs: number): Promise<void> {
  if (!connection.initializeResponse?.agentCapabilities?.sessionCapabilities?.close) return;
  try {
    await connection.closeSession(acpSessionId, AbortSignal.timeout(timeoutMs));
  } catch (error) {
    log.warn(`session/close of ${acpSessionId} failed: ${errorMessage(error)}`);
  }
}

/** Deletes the agent's session (`session/delete`, else `session/close`), bounded; says what was done. */
export async function deleteAgentSession(connection: AcpConnection, acpSessionId: string, log: Logger, timeoutMs: number): Promise<'deleted' | 'closed' | 'none'> {
  const sessions = connection.initializeResponse?.agentCapabilities?.sessionCapabilities;
  try {
    if (sessions?.delete) {
      await connection.deleteSession(acpSessionId, AbortSignal.timeout(timeoutMs));
      return 'deleted';
    }
    if (sessions?.close) {
      await connection.closeSession(acpSessionId, AbortSignal.timeout(timeoutMs));
      return 'closed';
    }
  } catch (error) {
    log.warn(`deleting the agent's session ${acpSessionId} failed: ${errorMessage(error)}`);
  }
  return 'none';
}

/** The agent's error message with its `data.details` when it gives some ("Internal error" alone says nothing). */
function withDetails(error: unknown): string {
  const details = error instanceof RequestError ? (error.data as { details?: unknown } | undefined)?.details : undefined;
  return typeof details === 'string' && details.trim() ? `${errorMessage(error)}: ${details.trim().slice(0, 300)}` : errorMessage(error);
}
