// The supervisor's AgentHandleProvider over ACP: one agent process per active session, created lazily.

import type { ChatMessage } from '../../../agent/providers/types';
import { Disposable, toDisposable } from '../common/disposable';
import { errorMessage } from '../common/errors';
import type { AgentHandle, AgentHandleProvider } from '../ports/agentHandle';
import type { Logger } from '../ports/logger';
import { AcpAgentHandle, type AcpHandleDeps } from './acpAgentHandle';
import type { LaunchSpec } from './agentLaunch';
import { SingleFlight } from '../common/singleFlight';

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
    return handle;
  }

  /** The running agent process of a session (its group leader), if any. */
  pidOf(sessionId: string): number | undefined {
    return this.handles.get(sessionId)?.pid;
  }

  /** The running agent of a session (for requests that reach Vigil outside ACP, e.g. its MCP task server). */
  handleOf(sessionId: string): AcpAgentHandle | undefined {
    return this.handles.get(sessionId);
  }

  /** Stops a session's agent process (the session went idle or was closed). */
  async release(sessionId: string): Promise<void> {
    await this.creating.get(sessionId)?.catch(() => undefined);
    const handle = this.handles.get(sessionId);
    this.handles.delete(sessionId);
    await handle?.dispose();
  }
}
