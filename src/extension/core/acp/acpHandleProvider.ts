// The supervisor's AgentHandleProvider over ACP: one agent process per active session, created lazily.

import type { ChatMessage } from '../../../agent/providers/types';
import { Disposable, toDisposable } from '../common/disposable';
import { errorMessage } from '../common/errors';
import type { AgentHandle, AgentHandleProvider } from '../ports/agentHandle';
import type { Logger } from '../ports/logger';
import { AcpAgentHandle, type AcpHandleDeps } from './acpAgentHandle';
import type { LaunchSpec } from './agentLaunch';

export interface AcpProviderDeps extends Omit<AcpHandleDeps, 'cwd' | 'launch' | 'loadHistory'> {
  log: Logger;
  cwdFor(sessionId: string): string;
  launchFor(sessionId: string): Promise<LaunchSpec>;
  loadHistoryFor?(sessionId: string): Promise<ChatMessage[]>;
}

export class AcpAgentHandleProvider extends Disposable implements AgentHandleProvider {
  private readonly handles = new Map<string, AcpAgentHandle>();

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
    let handle = this.handles.get(sessionId);
    if (!handle) {
      const { cwdFor, launchFor, loadHistoryFor, ...rest } = this.deps;
      handle = new AcpAgentHandle(sessionId, {
        ...rest,
        cwd: cwdFor(sessionId),
        launch: () => launchFor(sessionId),
        loadHistory: loadHistoryFor ? () => loadHistoryFor(sessionId) : undefined,
      });
      this.handles.set(sessionId, handle);
    }
    return handle;
  }

  /** The running agent process of a session (its group leader), if any. */
  pidOf(sessionId: string): number | undefined {
    return this.handles.get(sessionId)?.pid;
  }

  /** Stops a session's agent process (the session went idle or was closed). */
  async release(sessionId: string): Promise<void> {
    const handle = this.handles.get(sessionId);
    this.handles.delete(sessionId);
    await handle?.dispose();
  }
}
