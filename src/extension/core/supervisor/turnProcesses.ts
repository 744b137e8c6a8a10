// Which processes a turn's agent started: the host's processes at turn start, samples of the agent's tree
// while the turn runs, and at its end the ones started during the turn that still run (also those that
// left the agent's tree by daemonizing), minus the agent's older helpers and the registry's tasks. A process
// is its pid and its start time: a pid seen once and reused since names someone else's process.

import { listDescendants } from '../common/processTree';
import { clockTicksNow, environHas, identityOf, readProcessTable, readProgram, readSubtree, readTurnBaseline, type ProcessInfo, type ProcessProgram, type ProcessTable } from './processTable';

/** An environment variable set only on one agent process; its descendants inherit it unless they clear it. */
export interface AgentMarker {
  name: string;
  value: string;
}

/**
 * A program Vigil gave the agent to start (its task server): kept only when the process runs exactly that
 * program (its executable and arguments) and carries `env`. An environment entry alone proves nothing: any
 * child of the agent can carry it.
 */
export interface KeptProgram {
  command: string;
  args: readonly string[];
  env: AgentMarker;
}

export interface TurnProcessReads {
  table(): Promise<ProcessTable>;
  subtree(root: number): Promise<ProcessTable | undefined>;
  environHas(pid: number, name: string, value: string): Promise<boolean>;
  /** A cheap turn-start snapshot: the agent's tree and "now" in start-time units; undefined: read the table. */
  baseline?(agentPid: number): Promise<{ table: ProcessTable; now: number } | undefined>;
  /** "Now" in the units of `ProcessInfo.start` (undefined where unknown): when a sample saw its processes alive. */
  now?(): number | undefined;
  /** The executable and arguments `pid` runs (undefined when unknown: nothing is kept then). */
  program?(pid: number): Promise<ProcessProgram | undefined>;
}

const procReads: TurnProcessReads = {
  table: readProcessTable,
  subtree: readSubtree,
  environHas,
  baseline: readTurnBaseline,
  program: readProgram,
  now: () => (process.platform === 'linux' ? clockTicksNow() : undefined),
};

/** A new process a sample found in the agent's tree, and the latest time a sample saw it alive (if known). */
interface Seen {
  info: ProcessInfo;
  aliveAt: number | undefined;
}

export interface TurnProcessOptions {
  agentPid: number;
  marker?: AgentMarker;
  reads?: TurnProcessReads;
  /** This process (the extension host): never a leftover, nor is anything above it. */
  selfPid?: number;
  /**
   * A turn taken back after a reload began this long ago: what the agent started since then is the turn's,
   * although it runs already (Linux; elsewhere the snapshot is taken now).
   */
  runningForMs?: number;
}

export class TurnProcessWatch {
  private readonly before = new Set<string>();
  /** The latest start among the processes that existed at turn start: nothing older is new. */
  private readonly newestBefore: number;
  private readonly agent: ProcessInfo | undefined;
  /** New processes seen in the agent's tree during the turn (by identity), also after they ended. */
  private readonly seen = new Map<string, Seen>();
  private readonly reads: TurnProcessReads;
  private sampling: Promise<void> | undefined;
  private sampleAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  private constructor(
    private readonly o: TurnProcessOptions,
    table: ProcessTable,
    newestBefore?: number,
  ) {
    this.reads = o.reads ?? procReads;
    let newest = Number.NEGATIVE_INFINITY;
    for (const p of table.values()) {
      this.before.add(identityOf(p));
      newest = Math.max(newest, p.start);
    }
    this.newestBefore = newestBefore ?? newest;
    this.agent = table.get(o.agentPid);
  }

  /**
   * Takes the turn-start snapshot; call it before the agent is sent the prompt. On Linux only the agent's
   * tree and the time are read (the whole table took 4–30 ms on the way to every prompt): a process outside
   * that tree is old by its start time alone.
   */
  static async begin(o: TurnProcessOptions): Promise<TurnProcessWatch> {
    const reads = o.reads ?? procReads;
    const quick = await reads.baseline?.(o.agentPid);
    if (quick && o.runningForMs !== undefined) {
      // Start times are in 1/100 s since boot (processTable.ts): the turn's start in the same ticks.
      const since = quick.now - Math.ceil(o.runningForMs / 10);
      return new TurnProcessWatch(o, new Map([...quick.table].filter(([, p]) => p.start < since)), since);
    }
    if (quick) return new TurnProcessWatch(o, quick.table, quick.now);
    return new TurnProcessWatch(o, await reads.table());
  }

  /** Samples the agent's tree every `intervalMs` until `stop()` (catches children that later daemonize). */
  sampleEvery(intervalMs: number): void {
    const tick = () => {
      this.timer = undefined;
      if (this.stopped) return;
      void this.sample().finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, intervalMs).unref();
      });
    };
    this.timer ??= setTimeout(tick, intervalMs).unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Records the agent's new descendants now. Calls during a sample share it and one more after it. */
  sample(): Promise<void> {
    if (this.sampling) {
      this.sampleAgain = true;
      return this.sampling;
    }
    this.sampling = (async () => {
      do {
        this.sampleAgain = false;
        await this.sampleOnce().catch(() => undefined);
      } while (this.sampleAgain);
    })().finally(() => {
      this.sampling = undefined;
    });
    return this.sampling;
  }

  /**
   * The processes started during the turn that still run: new descendants of the agent, new processes seen
   * in its tree before, new members of a session or group that the agent or one of those leads, new
   * processes carrying the agent's marker, and their new descendants. `spared` pids (the registry's tasks)
   * are left alone with their sessions, groups and descendants, and so are processes running a `kept`
   * program (Vigil's own servers for the agent).
   */
  async leftovers(spared: Iterable<number>, kept: readonly KeptProgram[] = []): Promise<ProcessInfo[]> {
    const table = await this.reads.table();
    const excluded = this.excluded(table, new Set(spared));
    const candidates = [...table.values()].filter((p) => this.isNew(p) && !excluded(p));
    const found = new Map<number, ProcessInfo>();
    const family = this.family(table);
    const add = (p: ProcessInfo) => {
      found.set(p.pid, p);
      family.add(p.pid);
    };
    for (const { info } of this.seen.values()) {
      const now = table.get(info.pid);
      if (now && identityOf(now) === identityOf(info) && !excluded(now)) add(now);
    }
    const grow = () => {
      for (let changed = true; changed; ) {
        changed = false;
        for (const p of candidates) {
          if (found.has(p.pid)) continue;
          const agentChild = p.ppid === this.o.agentPid && family.has(this.o.agentPid);
          if (agentChild || found.has(p.ppid) || family.has(p.sid) || family.has(p.pgid) || this.inEndedFamily(p)) {
            add(p);
            changed = true;
          }
        }
      }
    };
    grow();
    const marker = this.o.marker;
    if (marker) {
      const rest = candidates.filter((p) => !found.has(p.pid));
      const marked = await Promise.all(rest.map((p) => this.reads.environHas(p.pid, marker.name, marker.value)));
      rest.forEach((p, i) => marked[i] && add(p));
      grow();
    }
    const all = [...found.values()];
    if (kept.length === 0) return all;
    const keep = await Promise.all(all.map((p) => this.runsKept(p, kept)));
    return all.filter((_, i) => !keep[i]);
  }

  private async runsKept(p: ProcessInfo, kept: readonly KeptProgram[]): Promise<boolean> {
    const program = await this.reads.program?.(p.pid);
    if (!program) return false;
    for (const k of kept) {
      if (program.exe !== k.command || program.args.length !== k.args.length || program.args.some((a, i) => a !== k.args[i])) continue;
      if (await this.reads.environHas(p.pid, k.env.name, k.env.value)) return true;
    }
    return false;
  }

  /**
   * Sessions and groups are named by the pid of their leader: the agent's and every seen process's, but only
   * while that pid still names the very process seen (by start time). A pid that ended and went to another
   * process (pid reuse) leads that process's session, never one of the agent's.
   */
  private family(table: ProcessTable): Set<number> {
    const family = new Set<number>();
    if (this.agentAlive(table)) family.add(this.o.agentPid);
    for (const { info } of this.seen.values()) {
      const now = table.get(info.pid);
      if (now && identityOf(now) === identityOf(info)) family.add(info.pid);
    }
    return family;
  }

  /**
   * A member of the session or group of a seen process that has ended is the agent's only if it started
   * before a sample saw that leader alive: then the id was still the leader's own. One started later may
   * belong to a process that got the leader's pid afterwards (the kernel frees an id once its session and
   * group are empty), so it is left alone unless something else ties it to the agent.
   */
  private inEndedFamily(p: ProcessInfo): boolean {
    for (const { info, aliveAt } of this.seen.values()) {
      if (aliveAt === undefined || p.start >= aliveAt) continue;
      if ((p.sid === info.pid || p.pgid === info.pid) && p.start >= info.start) return true;
    }
    return false;
  }

  private async sampleOnce(): Promise<void> {
    if (!this.agent) return;
    const pid = this.o.agentPid;
    // Read before the tree: every process the tree holds was alive at this time or later.
    const at = this.reads.now?.();
    const tree = (await this.reads.subtree(pid)) ?? (await descendantsIn(await this.reads.table(), pid));
    for (const p of tree.values()) if (this.isNew(p)) this.seen.set(identityOf(p), { info: p, aliveAt: at });
  }

  private isNew(p: ProcessInfo): boolean {
    return p.start >= this.newestBefore && !this.before.has(identityOf(p)) && p.state !== 'Z';
  }

  private agentAlive(table: ProcessTable): boolean {
    const now = table.get(this.o.agentPid);
    return !!this.agent && !!now && identityOf(now) === identityOf(this.agent);
  }

  /** The agent, init, this process and its ancestors, and every spared task with its session, group and tree. */
  private excluded(table: ProcessTable, spare: Set<number>): (p: ProcessInfo) => boolean {
    const mine = new Set<number>();
    for (let pid: number | undefined = this.o.selfPid ?? process.pid; pid !== undefined && pid > 0 && !mine.has(pid); pid = table.get(pid)?.ppid) mine.add(pid);
    return (p) => {
      if (p.pid <= 1 || p.pid === this.o.agentPid || mine.has(p.pid)) return true;
      if (spare.size === 0) return false;
      if (spare.has(p.sid) || spare.has(p.pgid)) return true;
      const visited = new Set<number>();
      for (let q: ProcessInfo | undefined = p; q && !visited.has(q.pid); q = table.get(q.ppid)) {
        if (spare.has(q.pid)) return true;
        visited.add(q.pid);
      }
      return false;
    };
  }
}

/** The part of `table` under `root`, by the shared parent walk of processTree. */
async function descendantsIn(table: ProcessTable, root: number): Promise<ProcessTable> {
  const pids = await listDescendants(root, async () => new Map([...table.values()].map((p) => [p.pid, p.ppid])));
  return new Map(pids.map((pid) => [pid, table.get(pid) as ProcessInfo]));
}
