// One session's agent process as a slot: started on demand (once, however many ask), watched for an exit
// that Vigil did not cause (a crash, reported at the next prompt), and emptied when it ends.

import { errorMessage, VigilError } from '../common/errors';
import { EventHub, type Unsubscribe } from '../common/events';
import type { AcpHandleDeps, LiveAgent as Live } from './acpHandleDeps';
import type { AgentChannel, AgentExit } from './agentProcess';
import { memoryBook, type AgentSessionBook } from './agentSessionBinding';

export abstract class AgentProcessSlot {
  protected live: Live | undefined;
  protected starting: Promise<Live> | undefined;
  private readonly exits = new EventHub<{ code: number | null; signal: string | null }>();
  /** Processes Vigil stopped on purpose: their exit is no crash. */
  protected readonly killed = new WeakSet<AgentChannel>();
  protected crashNotice: string | undefined;
  protected disposed = false;
  protected readonly book: AgentSessionBook;

  constructor(
    readonly sessionId: string,
    protected readonly deps: AcpHandleDeps,
  ) {
    this.book = deps.agentSessions ?? memoryBook();
  }

  /** Whether the live agent runs behind the relay (another window may take it over): see AgentHandle. */
  outlivesWindow(): boolean {
    const process = this.live?.process;
    return process !== undefined && 'detach' in process;
  }

  /** Starts the process, opens its session and makes it `live` (see {@link watch}). */
  protected abstract start(): Promise<Live>;

  /** Kills the process (live, or the one starting) as a tree, on purpose: its exit is no crash. */
  protected async stopProcess(reason: string): Promise<void> {
    // A start that fails cleans up after itself (it kills its process), so only a live one matters.
    const live = this.live ?? (await this.starting?.catch((error: unknown) => void this.deps.log.debug(`kill during a failed start: ${errorMessage(error)}`)));
    if (!live) return;
    this.deps.log.warn(`killing the agent of session ${this.sessionId} (pid ${live.process.pid}): ${reason}`);
    this.killed.add(live.process);
    await live.process.kill();
    this.drop(live);
  }

  /** Another process opened this session's agent session since ours did: ours holds a stale copy of it. */
  protected async continuedElsewhere(live: Live): Promise<boolean> {
    if (!live.opener) return false;
    const binding = await this.book.read(this.sessionId).catch(() => undefined);
    return binding !== undefined && binding.opener !== live.opener;
  }

  /** Makes `live` this slot's process, and reports its exit when it ends. */
  protected watch(live: Live): void {
    this.live = live;
    void live.process.exited.then((exit) => this.onProcessExit(live, exit));
  }

  onExit(listener: (info: { code: number | null; signal: string | null }) => void): Unsubscribe {
    return this.exits.subscribe(listener);
  }

  get pid(): number | undefined {
    return this.live?.process.pid;
  }

  protected ensureStarted(): Promise<Live> {
    if (this.live) return Promise.resolve(this.live);
    if (this.disposed) return Promise.reject(new VigilError('AGENT_FAILED', 'the session was closed'));
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  protected onProcessExit(live: Live, exit: AgentExit): void {
    const expected = this.killed.has(live.process);
    this.drop(live);
    if (!expected) {
      const tail = live.process.recentStderr;
      this.crashNotice = `The agent process crashed (exit code ${exit.code ?? 'none'}${exit.signal ? `, signal ${exit.signal}` : ''}) and was restarted.${tail ? ` Its last output: ${tail.slice(-500)}` : ''}`;
      this.deps.log.error(`agent of session ${this.sessionId} exited unexpectedly (code ${exit.code}, signal ${exit.signal})`);
    }
    this.exits.emit(exit, (error) => this.deps.log.error(`onExit listener failed: ${errorMessage(error)}`));
  }

  protected drop(live: Live): void {
    if (this.live === live) this.live = undefined;
    live.connection.close();
    void live.terminals.agentGone();
  }
}
