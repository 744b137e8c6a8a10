// One Vigil window in a process of its own, for the tests of a turn that outlives its window: it starts the
// services on a storage root with the fake agent behind the relay, starts a turn, says `streaming <session>`
// once the answer is coming, and then either disposes its services and exits (a reload) on `leave` from its
// stdin, or waits to be killed (an extension host SIGKILLed mid-stream). It also says `asking <session> <request>`
// when an approval opens, `ended <reason>` when a turn ends here, and answers its open approvals on `answer <answer>`
// (a window that wakes after another took its turn). VIGIL_TEST_APPROVALS (below) says what is asked; VIGIL_TEST_LEASE_TTL
// sets the lease's TTL in ms.
//
// Run: node relayWindow.js <storageRoot> <workspace> <prompt>

import * as readline from 'node:readline';
import { ApprovalBroker } from '../../../src/extension/presentation/approvalBroker';
import { VigilServices } from '../../../src/extension/services';
import { fakeSpec } from './relayWorld';

export const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** VIGIL_TEST_APPROVALS: `ask` (every kind) or the kinds asked about, comma-separated; else everything is allowed. */
function asked(kind: string): boolean {
  const which = process.env.VIGIL_TEST_APPROVALS;
  return which === 'ask' || (which ?? '').split(',').includes(kind);
}

export function windowOptions(storageRoot: string, workspace: string, windowId: string) {
  return {
    storageRoot,
    windowId,
    logger: process.env.VIGIL_TEST_LOG ? { ...quietLogger, info: console.error, warn: console.error, error: console.error } : quietLogger,
    windowFolders: () => [workspace],
    folderlessCwd: () => workspace,
    liveness: () => ({ enabled: true, timeoutMs: 60_000, toolTimeoutMs: 120_000, graceMs: 2_000 }),
    maxWakeupsPerTurn: () => 5,
    activityThrottleMs: 0,
    outputByteLimit: () => 64 * 1024,
    detachedGraceSeconds: () => Number(process.env.VIGIL_TEST_GRACE ?? 60),
    launchFor: async () => fakeSpec(),
    policy: { isTrusted: () => true, mode: (kind: string) => (asked(kind) ? ('ask' as const) : ('allowAll' as const)) },
    prompter: new ApprovalBroker(),
    ...(process.env.VIGIL_TEST_LEASE_TTL ? { leaseTtlMs: Number(process.env.VIGIL_TEST_LEASE_TTL) } : {}),
  };
}

/**
 * `take-back` instead of a prompt: a window that takes back the turn an earlier one left and is reloaded while it
 * attaches (its launch says `launching` and answers only once `leave` began the window's end).
 */
async function takeBackAndLeave(storageRoot: string, workspace: string): Promise<void> {
  let go!: () => void;
  const released = new Promise<void>((resolve) => (go = resolve));
  const options = windowOptions(storageRoot, workspace, 'window-b');
  const services = await VigilServices.start({
    ...options,
    launchFor: async () => {
      process.stdout.write('launching\n');
      await released;
      return fakeSpec();
    },
  });
  services.supervisor.subscribe((e) => {
    if (e.type === 'turnEnded') process.stdout.write(`ended ${e.ended.reason}\n`);
  });
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() !== 'leave') return;
    services.dispose();
    go();
    // What the take-back does once attached happens before the process goes.
    setTimeout(() => process.exit(0), 500);
  });
}

async function main(): Promise<void> {
  const [storageRoot, workspace, prompt] = process.argv.slice(2);
  if (prompt === 'take-back') return takeBackAndLeave(storageRoot, workspace);
  const options = windowOptions(storageRoot, workspace, 'window-a');
  const broker = options.prompter;
  const services = await VigilServices.start(options);
  const meta = await services.supervisor.sessions.create('relay test');
  let said = false;
  broker.subscribe((change) => {
    if (change.type === 'requested') process.stdout.write(`asking ${change.sessionId} ${change.approval.requestId}\n`);
  });
  services.supervisor.subscribe((e) => {
    if (e.type === 'turnEnded') process.stdout.write(`ended ${e.ended.reason}\n`);
    if (said || e.type !== 'activity' || !/message|streaming|approval/.test(e.description)) return;
    said = true;
    process.stdout.write(`streaming ${meta.id}\n`);
  });
  const started = await services.supervisor.startTurn(meta.id, prompt, { source: 'user' });
  if (started.kind !== 'started') throw new Error(`the turn did not start: ${JSON.stringify(started)}`);
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    const [word, answer] = line.trim().split(' ');
    if (word === 'answer') {
      const open = broker.openFor(meta.id);
      for (const approval of open) broker.answer(approval.requestId, answer as 'allowOnce' | 'reject');
      process.stdout.write(`answered ${open.length}\n`);
      return;
    }
    if (word !== 'leave') return;
    services.dispose();
    // Like an extension host that goes once its deactivation is done.
    setImmediate(() => process.exit(0));
  });
}

if (require.main === module) {
  void main().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  });
}
