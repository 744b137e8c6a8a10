// Serves ACP `terminal/*` from the TerminalHost (the background-task registry), reading Vigil's
// `_meta.vigil` background/notify rules, and reports foreground output as activity.

import type { CreateTerminalRequest as AcpCreateTerminal } from '@agentclientprotocol/sdk';
import type { VigilTerminalMeta } from '../../../shared/agentProtocol/vigilMethods';
import { VigilError } from '../common/errors';
import type { Unsubscribe } from '../common/events';
import type { Logger } from '../ports/logger';
import type { CreateTerminalRequest, StartSlot, TerminalHost } from '../ports/terminalHost';

interface Tracked {
  background: boolean;
  unsubscribe?: Unsubscribe;
}

export class TerminalBridge {
  private readonly terminals = new Map<string, Tracked>();

  constructor(
    private readonly host: TerminalHost | undefined,
    private readonly log: Logger,
  ) {}

  /** Room for one command of the session, taken before the person is asked; throws `TASK_LIMIT` over a cap. */
  reserveStart(vigilSessionId: string): StartSlot {
    return this.requireHost().reserveStart?.(vigilSessionId) ?? { sessionId: vigilSessionId, release: () => undefined };
  }

  /** `onOutput` receives each chunk of a foreground command (activity for the turn waiting on it). */
  async create(vigilSessionId: string, params: AcpCreateTerminal, onOutput: (chunk: string) => void, slot?: StartSlot): Promise<{ terminalId: string; background: boolean }> {
    const host = this.requireHost();
    const meta = readMeta(params._meta);
    const request: CreateTerminalRequest = {
      sessionId: vigilSessionId,
      command: params.command,
      args: params.args,
      cwd: params.cwd ?? undefined,
      env: params.env?.map((e) => ({ name: e.name, value: e.value })),
      outputByteLimit: params.outputByteLimit ?? undefined,
      background: meta.background === true,
      notify: meta.background ? { onExit: meta.notify?.onExit ?? true, pattern: meta.notify?.pattern } : undefined,
    };
    const { terminalId } = await host.create(request, slot);
    const tracked: Tracked = { background: request.background === true };
    if (!tracked.background) tracked.unsubscribe = host.onOutput(terminalId, onOutput);
    this.terminals.set(terminalId, tracked);
    return { terminalId, background: tracked.background };
  }

  output(terminalId: string) {
    return this.requireHost().output(terminalId);
  }

  waitForExit(terminalId: string, signal: AbortSignal) {
    return this.requireHost().waitForExit(terminalId, signal);
  }

  kill(terminalId: string) {
    return this.requireHost().kill(terminalId);
  }

  async release(terminalId: string): Promise<void> {
    const tracked = this.terminals.get(terminalId);
    tracked?.unsubscribe?.();
    this.terminals.delete(terminalId);
    await this.requireHost().release(terminalId);
  }

  /** The agent died: its foreground commands have no one waiting, so they are killed; background tasks live on. */
  async agentGone(): Promise<void> {
    for (const [id, tracked] of [...this.terminals]) {
      tracked.unsubscribe?.();
      this.terminals.delete(id);
      if (!tracked.background) {
        await this.host?.kill(id).catch((error: unknown) => this.log.warn(`killing foreground terminal ${id} after the agent died: ${(error as Error).message}`));
      }
    }
  }

  private requireHost(): TerminalHost {
    if (!this.host) throw new VigilError('TASK_FAILED', 'Terminals are not available in this host.');
    return this.host;
  }
}

function readMeta(meta: unknown): VigilTerminalMeta {
  const vigil = (meta as { vigil?: unknown } | null | undefined)?.vigil;
  if (!vigil || typeof vigil !== 'object') return {};
  const v = vigil as Record<string, unknown>;
  const notify = v.notify && typeof v.notify === 'object' ? (v.notify as Record<string, unknown>) : undefined;
  return {
    background: v.background === true,
    notify: notify
      ? { onExit: typeof notify.onExit === 'boolean' ? notify.onExit : undefined, pattern: typeof notify.pattern === 'string' ? notify.pattern : undefined }
      : undefined,
  };
}
