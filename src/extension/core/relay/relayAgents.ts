// The relays of one storage root, as the ACP handles use them (AgentRelays): start a session's agent
// behind a new relay, or attach to the one that runs it. A relay of another Vigil version is refused and
// ended (its turn ends as a crash does); one whose folder or process is gone counts as none.

import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { errorMessage, VigilError } from '../common/errors';
import { isAlive, killProcessTree } from '../common/processTree';
import type { Logger } from '../ports/logger';
import type { AgentRelays, RelayedChannel } from '../acp/acpHandleDeps';
import type { LaunchSpec } from '../acp/agentLaunch';
import type { StderrLog } from '../acp/stderrLog';
import { attachedElsewhere, otherVersionOf, RelayedAgent } from './relayClient';
import { listRelays, placeRelay, relayVersionWords, removeRelayPlace, sameVersion, type RelayRemains } from './relayPlace';
import { relayFileNames, type RelayState } from './relayProtocol';
import { relayProgram, startRelay, type RelayTimings } from './relayStart';

/** Whether `pid` is still a relay (guards against a pid reused after a reboot). */
export function isRelayProcess(pid: number): boolean {
  if (!isAlive(pid)) return false;
  if (process.platform !== 'linux') return true;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('agentRelay');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

export class RelayAgents implements AgentRelays {
  constructor(
    private readonly storageRoot: string,
    private readonly timings: () => RelayTimings,
    private readonly log: Logger,
  ) {}

  /** False when the relay program is missing (a broken install): agents then start as the host's children. */
  get available(): boolean {
    if (this.present !== undefined) return this.present;
    this.present = existsSync(relayProgram());
    if (!this.present) this.log.error(`Vigil's agent relay (${relayProgram()}) is missing: agents run without it, and a turn ends with its window. Reinstall the extension.`);
    return this.present;
  }

  private present: boolean | undefined;

  async start(sessionId: string, spec: LaunchSpec, cwd: string, stderr: StderrLog): Promise<RelayedChannel> {
    // A relay this session had (ended, or from an earlier window) is left to the scan; a new one starts clean.
    await this.endStale(sessionId, stderr);
    const place = await placeRelay(this.storageRoot, sessionId);
    const started = await startRelay(spec, cwd, place, this.timings());
    this.log.info(`${spec.label}: started behind relay ${started.pid} (agent pid ${started.agentPid})`);
    try {
      return await RelayedAgent.attach(place.dir, place.socket, started.pid, stderr, this.log);
    } catch (error) {
      await killProcessTree(started.pid).catch(() => undefined);
      throw error;
    }
  }

  /** `epoch`: the lease epoch of the turn taken back; a relay still serving a window of a lower one (frozen) is taken from it. */
  async attach(sessionId: string, stderr: StderrLog, epoch?: number): Promise<RelayedChannel | undefined> {
    const remains = (await listRelays(this.storageRoot)).find((r) => r.sessionId === sessionId);
    if (!remains?.state || !isRelayProcess(remains.state.pid)) return undefined;
    if (!sameVersion(remains.state)) {
      await this.stop(remains);
      throw new VigilError('AGENT_FAILED', relayVersionWords(remains.state.v));
    }
    try {
      return await RelayedAgent.attach(remains.dir, remains.state.socket, remains.state.pid, stderr, this.log, true, epoch);
    } catch (error) {
      // Its state said this version, its answer another: it cannot be spoken to, and nothing else would stop it.
      const theirs = otherVersionOf(error);
      if (theirs === undefined) throw error;
      await this.stop(remains);
      throw new VigilError('AGENT_FAILED', relayVersionWords(theirs), { cause: error });
    }
  }

  /** Stops a relay this window will not use (another version): its tree, and its agent should that have left the tree. */
  async stop(remains: RelayRemains): Promise<void> {
    if (!remains.state) return;
    this.log.warn(`session ${remains.sessionId}: stopping the agent relay ${remains.state.pid} (relay protocol ${remains.state.v})`);
    for (const pid of [remains.state.pid, remains.state.agentPid]) {
      if (isAlive(pid)) await killProcessTree(pid).catch((error: unknown) => this.log.warn(`stopping ${pid}: ${errorMessage(error)}`));
    }
  }

  /** The sessions whose agent runs behind a live relay of this root, and those whose relay ended without a window (with why). */
  async scan(): Promise<{ live: RelayRemains[]; ended: RelayRemains[] }> {
    const all = await listRelays(this.storageRoot);
    return {
      live: all.filter((r) => r.state && isRelayProcess(r.state.pid)),
      ended: all.filter((r) => !(r.state && isRelayProcess(r.state.pid)) && r.ended),
    };
  }

  /** Forgets what a relay that ended left (after the next window has read it). */
  async forget(remains: RelayRemains): Promise<void> {
    await removeRelayPlace({ dir: remains.dir, socket: remains.state?.socket ?? path.join(remains.dir, relayFileNames.socket) });
  }

  private async endStale(sessionId: string, stderr: StderrLog): Promise<void> {
    const stale = (await listRelays(this.storageRoot)).find((r) => r.sessionId === sessionId);
    if (!stale) return;
    if (stale.state && isRelayProcess(stale.state.pid)) await this.endUnlessAttached(stale, stale.state, stderr);
    await this.forget(stale);
  }

  /**
   * A relay another window is attached to runs that window's agent (and perhaps its turn): it is never ended from
   * here. Asked the only way that cannot be wrong, by saying hello: the relay refuses a second window. One that lets
   * this window in had none, and is ended (its agent too, should that have left the tree).
   */
  private async endUnlessAttached(stale: RelayRemains, state: RelayState, stderr: StderrLog): Promise<void> {
    let probe: RelayedAgent | undefined;
    try {
      probe = await RelayedAgent.attach(stale.dir, state.socket, state.pid, stderr, this.log, true);
    } catch (error) {
      if (attachedElsewhere(error)) {
        throw new VigilError('SESSION_BUSY', `This session's agent runs in another Vigil window (relay ${state.pid}): continue the session there, or close it there first, then try again here.`);
      }
    }
    this.log.warn(`session ${stale.sessionId}: ending the agent relay ${state.pid} left from an earlier start`);
    if (probe) await probe.kill();
    else await killProcessTree(state.pid).catch((error: unknown) => this.log.warn(`ending relay ${state.pid}: ${errorMessage(error)}`));
  }
}
