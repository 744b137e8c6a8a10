// The supervisor's AgentHandleProvider over ACP: one agent process per active session, created lazily.

import type { ChatMessage } from '../../../shared/agentProtocol/history';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Disposable, toDisposable } from '../common/disposable';
import { errorMessage } from '../common/errors';
import type { AgentHandle, AgentHandleProvider } from '../ports/agentHandle';
import type { Logger } from '../ports/logger';
import { AcpAgentHandle, type AcpHandleDeps } from './acpAgentHandle';
import type { LaunchPurpose } from './acpHandleDeps';
import type { LaunchSpec } from './agentLaunch';
import { memoryBook, type AgentSessionBook } from './agentSessionBinding';
import { SingleFlight } from '../common/singleFlight';
import { EventHub, type Unsubscribe } from '../common/events';
import { emptyAgentState, type AgentStateView } from '../../../shared/agentState';
import type { AgentStateChange } from './agentSessionState';
import type { OptionValue } from './agentOptionChange';

export type AgentStateEvent = AgentStateChange & { sessionId: string };

export interface AcpProviderDeps extends Omit<AcpHandleDeps, 'cwd' | 'launch' | 'loadHistory'> {
  log: Logger;
  /** The session's folder; may refuse (throw) when this window must not run the session's agent. */
  cwdFor(sessionId: string): string | Promise<string>;
  launchFor(sessionId: string, purpose?: LaunchPurpose): Promise<LaunchSpec>;
  loadHistoryFor?(sessionId: string): Promise<ChatMessage[]>;
}

/** How long an agent may take to close its session when the window closes. */
const shutdownCloseMs = 500;

export class AcpAgentHandleProvider extends Disposable implements AgentHandleProvider {
  private readonly handles = new Map<string, AcpAgentHandle>();
  /** Handles whose cwd is being resolved: concurrent gets share one, so a session never gets two. */
  private readonly creating = new SingleFlight<string, AcpAgentHandle>();
  /** The agent sessions of Vigil's sessions: durable when the deps give a store, else for this provider's life. */
  private readonly book: AgentSessionBook;
  private readonly agentStates = new EventHub<AgentStateEvent>();

  constructor(private readonly deps: AcpProviderDeps) {
    super();
    this.book = deps.agentSessions ?? memoryBook();
    this._register(
      toDisposable(() => {
        // The window is closing: each agent is asked to close its session, briefly (its process is stopped
        // right after, before the host goes), and nothing here waits for it. A turn running behind the relay
        // is left to it: the next window takes it back.
        for (const handle of this.handles.values()) {
          handle.leave(shutdownCloseMs).catch((error: unknown) => deps.log.error(`disposing the agent of ${handle.sessionId}: ${errorMessage(error)}`));
        }
        this.handles.clear();
      }),
    );
  }

  async get(sessionId: string): Promise<AgentHandle> {
    const handle = this.handles.get(sessionId);
    if (handle) return handle;
    return this.creating.run(sessionId, () => this.create(sessionId));
  }

  private async create(sessionId: string): Promise<AcpAgentHandle> {
    const { cwdFor, launchFor, loadHistoryFor, ...rest } = this.deps;
    const cwd = await cwdFor(sessionId);
    const handle = new AcpAgentHandle(sessionId, {
      ...rest,
      agentSessions: this.book,
      cwd,
      launch: (purpose) => launchFor(sessionId, purpose),
      loadHistory: loadHistoryFor ? () => loadHistoryFor(sessionId) : undefined,
    });
    if (this.isDisposed) {
      await handle.dispose();
      throw new Error('The agents were shut down');
    }
    this.handles.set(sessionId, handle);
    handle.agentState.subscribe((change) => this.agentStates.emit({ ...change, sessionId }, (error) => this.deps.log.error(`agent state listener failed: ${errorMessage(error)}`)));
    return handle;
  }

  /** The session's handle with its sign-in side (auth methods, authenticate, logout). */
  async handle(sessionId: string): Promise<AcpAgentHandle> {
    return (await this.get(sessionId)) as AcpAgentHandle;
  }

  /** Every change of what a session's agent says about itself (options, commands, usage, title). */
  subscribeAgentState(listener: (event: AgentStateEvent) => void): Unsubscribe {
    return this.agentStates.subscribe(listener);
  }

  /** What the session's agent said so far; undefined while no agent was started for it in this window. */
  agentStateOf(sessionId: string): AgentStateView | undefined {
    return this.handles.get(sessionId)?.agentState.snapshot;
  }

  /** Starts the session's agent (if it is not running) so its options and commands are known. */
  async prepareAgent(sessionId: string): Promise<AgentStateView> {
    const handle = await this.handle(sessionId);
    await handle.prepare();
    return handle.agentState.snapshot;
  }

  /** Changes one option of the session's agent (starting it if needed); see AcpAgentHandle.setOption. */
  async setAgentOption(sessionId: string, configId: string, value: OptionValue): Promise<AgentStateView> {
    const handle = await this.handle(sessionId);
    await handle.setOption(configId, value);
    return handle.agentState.snapshot;
  }

  /** The running agent process of a session (its group leader), if any. */
  pidOf(sessionId: string): number | undefined {
    return this.handles.get(sessionId)?.pid;
  }

  /** The running agent of a session (for requests that reach Vigil outside ACP, e.g. its MCP task server). */
  handleOf(sessionId: string): AcpAgentHandle | undefined {
    return this.handles.get(sessionId);
  }

  /** Stops a session's agent process (the session went idle or was closed), closing its agent session first. */
  async release(sessionId: string): Promise<void> {
    await this.creating.get(sessionId)?.catch(() => undefined);
    const handle = this.handles.get(sessionId);
    this.handles.delete(sessionId);
    await handle?.release();
    this.clearAgentState(sessionId, handle);
  }

  /**
   * The Vigil session was deleted: its agent's session is deleted too (with the live process, or one
   * started only for that when the agent said it deletes sessions), and the binding is dropped.
   */
  async forget(sessionId: string): Promise<void> {
    await this.creating.get(sessionId)?.catch(() => undefined);
    const binding = await this.book.read(sessionId).catch((error: unknown) => void this.deps.log.warn(`the agent session of ${sessionId} could not be read: ${errorMessage(error)}`));
    let handle = this.handles.get(sessionId);
    this.handles.delete(sessionId);
    if (!handle && binding && binding.supports.delete && (await isFolder(binding.cwd))) {
      // The session's folder record is gone with the session: the agent runs where its session was opened.
      const { cwdFor: _cwd, launchFor, loadHistoryFor: _history, ...rest } = this.deps;
      handle = new AcpAgentHandle(sessionId, { ...rest, agentSessions: this.book, cwd: binding.cwd, launch: (purpose) => launchFor(sessionId, purpose) });
    }
    try {
      const done = handle ? await handle.deleteAgentSession(binding) : 'none';
      this.deps.log.info(`the agent session of deleted session ${sessionId}: ${done === 'none' ? 'nothing to delete in the agent' : done}`);
    } catch (error) {
      this.deps.log.warn(`the agent session of deleted session ${sessionId} could not be deleted: ${errorMessage(error)}`);
    } finally {
      this.clearAgentState(sessionId, handle);
      await this.book.remove(sessionId).catch((error: unknown) => this.deps.log.warn(`the agent session record of ${sessionId} could not be removed: ${errorMessage(error)}`));
    }
  }

  /** What a stopped agent offered no longer holds; the next one says its own. */
  private clearAgentState(sessionId: string, handle: AcpAgentHandle | undefined): void {
    if (handle) this.agentStates.emit({ kind: 'state', sessionId, state: emptyAgentState() }, (error) => this.deps.log.error(`agent state listener failed: ${errorMessage(error)}`));
  }
}

async function isFolder(p: string): Promise<boolean> {
  return path.isAbsolute(p) && (await fs.stat(p).then((st) => st.isDirectory(), () => false));
}
