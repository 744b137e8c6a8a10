// Where an idle wakeup's time goes, step by step, seen from outside the code it measures: the bench watches
// the tasks folder itself (the wrapper's notice, its temporary exit record, then the record's rename), wraps
// the outbox's and the lease's calls and the agent handle's prompt, and listens to the supervisor.
// Nothing here is in the shipped code.

import { appendFileSync, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import type { TaskCompletion } from '../../src/extension/core/tasks/taskTypes';
import type { VigilServices } from '../../src/extension/services';
import { percentile } from './cooperativeAgent';

const wall = (): number => performance.timeOrigin + performance.now();

/** The marks of one round, wall-clock ms; NaN where a step was not seen. */
export interface RoundMarks {
  /** The command's last act (its `date +%s%N`). */
  exit: number;
  /** The wrapper's unsynced exit notice renamed into place (where the wrapper writes one). */
  notice: number;
  /** The wrapper's temporary exit record appeared (after it reaped the command and fsynced the log). */
  tmp: number;
  /** The exit record renamed into place (its fsync done): what the host's watcher hears. */
  record: number;
  /** The outbox call that stores (and claims) the completion began: the host read the record and the log. */
  outboxStart: number;
  outboxDone: number;
  /** The supervisor was asked for the wakeup turn (the coordinator's reads done). */
  turnAsked: number;
  leaseStart: number;
  leaseDone: number;
  /** The admission asked for the outbox's lock to store the prompt under (absent in builds before it). */
  heldAsked: number;
  /** The lock held and the claim checked: the prompt's transcript append begins. */
  storeStart: number;
  /** The prompt's append synced. */
  storeDone: number;
  /** The wakeup turn's prompt is stored (the supervisor's `turnStarted`). */
  started: number;
  /** The prompt handed to the agent's ACP handle. */
  prompted: number;
  /** The agent read `session/prompt` (its own log). */
  atAgent: number;
}

/** When the host could first learn of the end: the notice, else the record. */
const heard = (r: RoundMarks): number => {
  const seen = [r.notice, r.record].filter((t) => !Number.isNaN(t));
  return seen.length > 0 ? Math.min(...seen) : NaN;
};

type Mutable = { -readonly [K in keyof RoundMarks]: RoundMarks[K] };

/** Instruments the services once; `round()` collects the marks of one wakeup. */
export class WakeupTrace {
  private current: Mutable | undefined;
  private readonly watcher: FSWatcher;
  private readonly rounds: RoundMarks[] = [];
  private readonly files = new Map<string, number>();
  private taskId: string | undefined;

  constructor(services: VigilServices, storageRoot: string) {
    // Every file's first event of the round: the task of the round is known only once its completion is stored
    // (an earlier task's wrapper may still be writing its record meanwhile).
    this.watcher = watch(path.join(storageRoot, 'tasks'), (_event, name) => {
      if (this.current && name && !this.files.has(name)) this.files.set(name, wall());
    });
    const outbox = services.outbox;
    for (const method of ['enqueueAndClaim', 'enqueue'] as const) {
      const original = outbox[method].bind(outbox) as (...args: unknown[]) => Promise<unknown>;
      (outbox as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        const c = this.current;
        if (c && Number.isNaN(c.outboxStart)) {
          c.outboxStart = wall();
          this.taskId = (args[0] as TaskCompletion).taskId;
        }
        return original(...args).finally(() => {
          if (c && Number.isNaN(c.outboxDone)) c.outboxDone = wall();
        });
      };
    }
    // The prompt is stored under the outbox's lock where the build has it (whileHeld): lock wait and fsync apart.
    const held = (outbox as unknown as Record<string, unknown>).whileHeld as ((claim: unknown, store: (held: boolean) => Promise<unknown>) => Promise<unknown>) | undefined;
    if (held) {
      (outbox as unknown as Record<string, unknown>).whileHeld = (claim: unknown, store: (h: boolean) => Promise<unknown>) => {
        const c = this.current;
        const mine = c && Number.isNaN(c.heldAsked) && !Number.isNaN(c.outboxStart);
        if (mine) c.heldAsked = wall();
        return held.call(outbox, claim, async (h: boolean) => {
          if (mine) c.storeStart = wall();
          try {
            return await store(h);
          } finally {
            if (mine) c.storeDone = wall();
          }
        });
      };
    }
    const lease = services.supervisor.lease;
    const acquire = lease.acquire.bind(lease);
    lease.acquire = (...args) => {
      const c = this.current;
      // The acquisition after the completion reached the outbox is the wakeup's.
      const mine = c && !Number.isNaN(c.outboxStart);
      if (mine) c.leaseStart = wall();
      return acquire(...args).finally(() => {
        if (mine) c.leaseDone = wall();
      });
    };
    const supervisor = services.supervisor;
    const startTurn = supervisor.startTurn.bind(supervisor);
    supervisor.startTurn = (sessionId, prompt, options) => {
      const c = this.current;
      if (c && options.source === 'wakeup' && Number.isNaN(c.turnAsked)) c.turnAsked = wall();
      return startTurn(sessionId, prompt, options);
    };
    services.supervisor.subscribe((e) => {
      const c = this.current;
      if (c && e.type === 'turnStarted' && e.source === 'wakeup' && Number.isNaN(c.started)) c.started = wall();
    });
    const agents = services.agents;
    const get = agents.get.bind(agents);
    const wrapped = new WeakSet<object>();
    agents.get = async (sessionId) => {
      const handle = await get(sessionId);
      if (wrapped.has(handle)) return handle;
      wrapped.add(handle);
      const prompt = handle.prompt.bind(handle);
      handle.prompt = (request) => {
        const c = this.current;
        if (c && !Number.isNaN(c.started) && Number.isNaN(c.prompted)) c.prompted = wall();
        return prompt(request);
      };
      return handle;
    };
  }

  /** Marks from now on belong to a new round. */
  begin(): void {
    this.files.clear();
    this.taskId = undefined;
    this.current = { exit: NaN, notice: NaN, tmp: NaN, record: NaN, outboxStart: NaN, outboxDone: NaN, turnAsked: NaN, leaseStart: NaN, leaseDone: NaN, heldAsked: NaN, storeStart: NaN, storeDone: NaN, started: NaN, prompted: NaN, atAgent: NaN };
  }

  /** Closes the round with the two marks only the caller knows. */
  end(exit: number, atAgent: number): void {
    if (!this.current) return;
    const at = (suffix: string) => this.files.get(`${this.taskId}${suffix}`) ?? NaN;
    this.rounds.push({ ...this.current, notice: at('.exit.notice'), tmp: at('.exit.tmp'), record: at('.exit'), exit, atAgent });
    this.current = undefined;
  }

  /** Closes the watcher; with VIGIL_BENCH_DUMP=<file>, appends every round's marks there (to pool runs). */
  close(): void {
    this.watcher.close();
    const dump = process.env.VIGIL_BENCH_DUMP;
    if (dump) appendFileSync(dump, this.rounds.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }

  /** One line: each step's p50 / p99 in ms, in the order they happen on the path. */
  summary(): string {
    const steps: Array<[string, (r: RoundMarks) => number]> = [
      ['exit → notice (wrapper reaps)', (r) => r.notice - r.exit],
      ['exit → temp record (wrapper reaps, log fsync)', (r) => r.tmp - r.exit],
      ['→ record renamed (record fsync)', (r) => r.record - r.tmp],
      ['exit → heard (notice or record)', (r) => heard(r) - r.exit],
      ['→ outbox call (host reads record and log)', (r) => r.outboxStart - heard(r)],
      ['→ completion stored and claimed (outbox)', (r) => r.outboxDone - r.outboxStart],
      ['outbox call → turn asked (coordinator reads)', (r) => r.turnAsked - r.outboxStart],
      ['→ lease acquire begins (supervisor reads)', (r) => r.leaseStart - r.turnAsked],
      ['lease acquire (beside the outbox)', (r) => r.leaseDone - r.leaseStart],
      ['heard → lease taken', (r) => r.leaseDone - heard(r)],
      ['max(outbox, lease) → prompt stored', (r) => r.started - Math.max(r.outboxDone, r.leaseDone)],
      ['  of it: → outbox lock asked (admission)', (r) => r.heldAsked - Math.max(r.outboxDone, r.leaseDone)],
      ['  → lock held, claim checked', (r) => r.storeStart - r.heldAsked],
      ['  → prompt appended and synced', (r) => r.storeDone - r.storeStart],
      ['→ prompt at the ACP handle (checkpoint mark)', (r) => r.prompted - r.started],
      ['→ read by the agent (ACP write)', (r) => r.atAgent - r.prompted],
      ['exit → at the agent', (r) => r.atAgent - r.exit],
    ];
    return steps
      .map(([name, of]) => {
        const values = this.rounds.map(of).filter((v) => Number.isFinite(v));
        if (values.length === 0) return `${name} —`;
        const missing = this.rounds.length - values.length;
        return `${name} ${percentile(values, 50).toFixed(1)} / ${percentile(values, 99).toFixed(1)}${missing > 0 ? ` (${missing} unseen)` : ''}`;
      })
      .join('; ');
  }
}
