// The supervisor's AgentHandleProvider over ACP: one agent process per active session, created lazily.

import type { ChatMessage } from '../../../agent/providers/types';
import { Disposable, toDisposable } from '../common/disposable';
import { errorMessage } from '../common/errors';
import type { AgentHandle, AgentHandleProvider } from '../ports/agentHandle';
import type { Logger } from '../ports/logger';
import { AcpAgentHandle, type AcpHandleDeps } from './acpAgentHandle';
import type { LaunchSpec } from './agentLaunch';
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
  launchFor(sessionId: string): Promise<LaunchSpec>;
  loadHistoryFor?(sessionId: string): Promise<ChatMessage[]>;
}

export class AcpAgentHandleProvider extends Disposable implements AgentHandleProvider {
  private readonly handles = new Map<string, AcpAgentHandle>();
  /** Handles whose cwd is being resolved: concurrent gets share one, so a session never gets two. */
  private readonly creating = new SingleFlight<string, AcpAgentHandle>();
  private readonly agentStates = new EventHub<AgentStateEvent>();

  constructor(private readonly deps: AcpProviderDeps) {
    super();
    this._register(
      toDisposable(() => {
        for (const handle of this.handles.values()) {
          handle.dispose().catch((error: unknown) => deps.log.error(`disposing the agent of ${handle.sessionId}: ${errorMessage(error)}`));
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
      cwd,
      launch: () => launchFor(sessionId),
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
    await this.get(sessionId);
    const handle = this.handles.get(sessionId)!;
    await handle.prepare();
    return handle.agentState.snapshot;
  }

  /** Changes one option of the session's agent (starting it if needed); see AcpAgentHandle.setOption. */
  async setAgentOption(sessionId: string, configId: string, value: OptionValue): Promise<AgentStateView> {
    await this.get(sessionId);
    const handle = this.handles.get(sessionId)!;
    await handle.setOption(configId, value);
    return handle.agentState.snapshot;
  }

  /** The running agent process of a session (its group leader), if any. */
  pidOf(sessionId: string): number | undefined {
    return this.handles.get(sessionId)?.pid;
  }

  /** Stops a session's agent process (the session went idle or was closed). */
  async release(sessionId: string): Promise<void> {
    await this.creating.get(sessionId)?.catch(() => undefined);
    const handle = this.handles.get(sessionId);
    this.handles.delete(sessionId);
    await handle?.dispose();
    // What the stopped agent offered no longer holds; the next one says its own.
    if (handle) this.agentStates.emit({ kind: 'state', sessionId, state: emptyAgentState() }, (error) => this.deps.log.error(`agent state listener failed: ${errorMessage(error)}`));
  }
}
