// One Vigil window in a process of its own, for the tests of a turn that outlives its window: it starts the
// services on a storage root with the fake agent behind the relay, starts a turn, says `streaming <session>`
// once the answer is coming, and then either disposes its services and exits (a reload) on `leave` from its
// stdin, or waits to be killed (an extension host SIGKILLed mid-stream).
//
// Run: node relayWindow.js <storageRoot> <workspace> <prompt>

import * as readline from 'node:readline';
import { ApprovalBroker } from '../../../src/extension/presentation/approvalBroker';
import { VigilServices } from '../../../src/extension/services';
import { fakeSpec } from './relayWorld';

export const quietLogger = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

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
    policy: { isTrusted: () => true, mode: () => 'allowAll' as const },
    prompter: new ApprovalBroker(),
  };
}

async function main(): Promise<void> {
  const [storageRoot, workspace, prompt] = process.argv.slice(2);
  const services = await VigilServices.start(windowOptions(storageRoot, workspace, 'window-a'));
  const meta = await services.supervisor.sessions.create('relay test');
  let said = false;
  services.supervisor.subscribe((e) => {
    if (said || e.type !== 'activity' || !/message|streaming|approval/.test(e.description)) return;
    said = true;
    process.stdout.write(`streaming ${meta.id}\n`);
  });
  const started = await services.supervisor.startTurn(meta.id, prompt, { source: 'user' });
  if (started.kind !== 'started') throw new Error(`the turn did not start: ${JSON.stringify(started)}`);
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() !== 'leave') return;
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
