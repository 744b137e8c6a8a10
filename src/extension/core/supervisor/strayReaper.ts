// Stops the processes a stopped turn's agent left running: SIGTERM, then SIGKILL for any still there after
// the grace. Says what was stopped in one bounded line, with secret-looking arguments masked.

import type { Clock } from '../ports/clock';
import { identityOf, readCommandLine, statOf, type ProcessInfo } from './processTable';

export interface Leftover {
  info: ProcessInfo;
  /** Its command line when it was stopped (masked, bounded). */
  command: string;
}

export interface StopOutcome {
  /** Everything that was sent SIGTERM. */
  stopped: Leftover[];
  /** Settles once all of them ended or the grace ran out: the ones that then needed SIGKILL. */
  killed: Promise<Leftover[]>;
}

export interface ReaperDeps {
  clock: Clock;
  graceMs: number;
  /** How often to look whether they ended during the grace (non-children give no exit event). */
  pollMs?: number;
  stat?(pid: number): Promise<ProcessInfo | undefined>;
  commandLine?(pid: number): Promise<string | undefined>;
  kill?(target: number, signal: NodeJS.Signals): void;
}

const listedCommands = 5;
const commandChars = 80;

/** SIGTERM now (each process, and the group of each that leads one); SIGKILL after the grace for the rest. */
export async function stopLeftovers(procs: readonly ProcessInfo[], deps: ReaperDeps): Promise<StopOutcome> {
  const stat = deps.stat ?? statOf;
  const commandLine = deps.commandLine ?? readCommandLine;
  const kill = deps.kill ?? signal;
  const stopped: Leftover[] = [];
  for (const info of procs) {
    // Read again just before signalling: a pid that ended and was reused since the scan is not ours to touch.
    if (!(await same(info, stat))) continue;
    stopped.push({ info, command: maskCommand((await commandLine(info.pid)) ?? info.name) });
  }
  for (const { info } of stopped) signalOne(info, 'SIGTERM', kill);
  const killed = (async () => {
    const deadline = deps.clock.now() + Math.max(0, deps.graceMs);
    let left = stopped;
    for (;;) {
      left = await filterAsync(left, (l) => same(l.info, stat));
      if (left.length === 0 || deps.clock.now() >= deadline) break;
      await new Promise<void>((resolve) => deps.clock.setTimer(Math.min(deps.pollMs ?? 50, deadline - deps.clock.now()), resolve));
    }
    for (const { info } of left) signalOne(info, 'SIGKILL', kill);
    return left;
  })();
  return { stopped, killed };
}

/** "Stopped 2 processes the agent left running: sleep 600, npm test" — at most five commands, each cut short. */
export function describeStopped(stopped: readonly Leftover[]): string {
  const pids = new Set(stopped.map((l) => l.info.pid));
  // The commands the agent ran, not every child they forked: a process whose parent is also stopped is not named.
  const heads = stopped.filter((l) => !pids.has(l.info.ppid));
  const commands = [...new Set((heads.length > 0 ? heads : stopped).map((l) => l.command))];
  const shown = commands.slice(0, listedCommands).join(', ');
  const more = commands.length > listedCommands ? ` and ${commands.length - listedCommands} more` : '';
  const n = stopped.length;
  return `Stopped ${n} process${n === 1 ? '' : 'es'} the agent left running: ${shown}${more}`;
}

/** "1 process ignored SIGTERM for 10 s and was killed: node server.js" */
export function describeKilled(killed: readonly Leftover[], graceMs: number): string {
  const n = killed.length;
  const commands = [...new Set(killed.map((l) => l.command))];
  const more = commands.length > listedCommands ? ` and ${commands.length - listedCommands} more` : '';
  const what = n === 1 ? '1 process ignored SIGTERM' : `${n} processes ignored SIGTERM`;
  return `${what} for ${graceMs / 1000} s and ${n === 1 ? 'was' : 'were'} killed: ${commands.slice(0, listedCommands).join(', ')}${more}`;
}

const secretFlag = /^(--?[\w-]*(?:token|secret|password|passwd|api[-_]?key|auth|credential)[\w-]*)(=.*)?$/i;
const secretAssignment = /^([\w.-]*(?:token|secret|password|passwd|api[-_]?key|auth|credential)[\w.-]*)=.+$/i;

/** One line, bounded; values of secret-looking flags and assignments and bearer/basic credentials masked. */
export function maskCommand(command: string): string {
  // Control characters (an agent's hostile command line could carry escapes) become spaces.
  const printable = [...command].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? ' ' : c)).join('');
  const words = printable.trim().split(/\s+/);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const w = words[i];
    const flag = secretFlag.exec(w);
    const assignment = secretAssignment.exec(w);
    if (flag && flag[2] !== undefined) out.push(`${flag[1]}=***`);
    else if (flag && i + 1 < words.length) {
      out.push(w, '***');
      i += 1;
    } else if (assignment) out.push(`${assignment[1]}=***`);
    else if (/^(bearer|basic)$/i.test(w.replace(/^['"]/, '')) && i + 1 < words.length) {
      out.push(w, '***');
      i += 1;
    } else out.push(w);
  }
  const line = out.join(' ');
  return line.length > commandChars ? `${line.slice(0, commandChars - 1)}…` : line;
}

async function same(info: ProcessInfo, stat: (pid: number) => Promise<ProcessInfo | undefined>): Promise<boolean> {
  const now = await stat(info.pid);
  return !!now && identityOf(now) === identityOf(info) && now.state !== 'Z';
}

function signalOne(info: ProcessInfo, sig: NodeJS.Signals, kill: (target: number, signal: NodeJS.Signals) => void): void {
  // A group it leads was made during the turn (it is new): the group also reaches what it forked since the scan.
  if (info.pgid === info.pid) kill(-info.pid, sig);
  kill(info.pid, sig);
}

/** Never throws: one process that cannot be signalled must not spare the others. */
function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch (error) {
    // ESRCH: already gone. EPERM: not ours (it changed hands). Nothing else is expected of kill(2) here.
    void error;
  }
}

async function filterAsync<T>(items: readonly T[], test: (item: T) => Promise<boolean>): Promise<T[]> {
  const keep = await Promise.all(items.map(test));
  return items.filter((_, i) => keep[i]);
}
