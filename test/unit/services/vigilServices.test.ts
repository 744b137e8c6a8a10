// The composed services on plain Node with the real built-in agent process (demo model): a user
// turn starts a background build and ends; the build's exit wakes the agent exactly once.

import * as assert from 'node:assert';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtinLaunch } from '../../../src/extension/core/acp/agentLaunch';
import type { SupervisorEvent } from '../../../src/extension/core/supervisor/supervisorEvents';
import { ApprovalBroker } from '../../../src/extension/presentation/approvalBroker';
import { ensureAgentBundle } from '../agent/agentBundle';
import { VigilServices } from '../../../src/extension/services';

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
// The agent as it ships, bundled into out/ (dist/ may be rewritten by packaging while this suite runs).
let agentScript: string;

function waitFor<T>(events: T[], subscribe: (fn: (e: T) => void) => () => void, predicate: (e: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const seen = events.find(predicate);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    const off = subscribe((e) => {
      if (!predicate(e)) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

describe('VigilServices (plain Node, real agent process)', function () {
  let root: string;
  let workspace: string;
  let services: VigilServices;
  const events: SupervisorEvent[] = [];

  before(async function () {
    this.timeout(60_000);
    agentScript = await ensureAgentBundle();
    root = mkdtempSync(path.join(os.tmpdir(), 'vigil-services-'));
    workspace = path.join(root, 'workspace');
    cpSync(path.join(repoRoot, 'sample'), workspace, { recursive: true });
    services = await VigilServices.start({
      storageRoot: path.join(root, 'storage'),
      windowId: 'window-1',
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} },
      windowFolders: () => [workspace],
      folderlessCwd: () => workspace,
      liveness: () => ({ enabled: true, timeoutMs: 60_000, toolTimeoutMs: 120_000, graceMs: 5_000 }),
      maxWakeupsPerTurn: () => 5,
      outputByteLimit: () => 64 * 1024,
      launchFor: async () => builtinLaunch({ agentScript, execPath: process.execPath, model: { provider: 'demo', demoBuildSeconds: 0.3 } }),
      policy: { isTrusted: () => true, mode: () => 'allowAll' },
      prompter: new ApprovalBroker(),
    });
    services.supervisor.subscribe((e) => events.push(e));
  });

  after(async function () {
    services?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  it('a background build started in a user turn wakes the agent once, and it reports the result', async () => {
    const subscribe = (fn: (e: SupervisorEvent) => void) => services.supervisor.subscribe(fn);
    const meta = await services.supervisor.sessions.create('demo');
    const started = await services.supervisor.startTurn(meta.id, 'Hello, what does this project do?', { source: 'user' });
    assert.strictEqual(started.kind, 'started');
    const userEnd = await (started as { ended: Promise<{ reason: string }> }).ended;
    assert.strictEqual(userEnd.reason, 'completed');
    const wakeupStart = await waitFor(events, subscribe, (e) => e.type === 'turnStarted' && e.source === 'wakeup', 'the wakeup turn');
    assert.ok(wakeupStart.type === 'turnStarted');
    await waitFor(events, subscribe, (e) => e.type === 'turnEnded' && e.ended.turnId === wakeupStart.turnId, 'the wakeup turn to end');

    const { records } = await services.supervisor.sessions.readAll(meta.id);
    const wakeups = records.filter((r) => r.type === 'userPrompt' && r.source === 'wakeup');
    assert.strictEqual(wakeups.length, 1, 'exactly one wakeup prompt');
    assert.ok(wakeups[0].type === 'userPrompt');
    assert.match(wakeups[0].text, /^\[IMPORTANT: Background task \S+ completed \(exit code 0\)/);
    const after = records.slice(records.indexOf(wakeups[0]));
    const answer = after
      .filter((r) => r.type === 'agentUpdate' && r.update.sessionUpdate === 'agent_message_chunk')
      .map((r) => ((r as { update: { content?: { text?: string } } }).update.content?.text ?? ''))
      .join('');
    assert.match(answer, /build/i, 'the woken agent reports on the build');
    assert.strictEqual(services.registry.list({ sessionId: meta.id }).filter((t) => t.status === 'running').length, 0);
  });

  it('a session of a folder this window does not have open never runs here: no agent, no terminal, its wakeup waits', async () => {
    const elsewhere = path.join(root, 'elsewhere');
    cpSync(path.join(repoRoot, 'sample'), elsewhere, { recursive: true });
    const meta = await services.supervisor.sessions.create('other folder', undefined, { folder: elsewhere });
    const started = await services.supervisor.startTurn(meta.id, 'Hello from the wrong window', { source: 'user' });
    assert.strictEqual(started.kind, 'started');
    const ended = await (started as { ended: Promise<{ reason: string; message?: string }> }).ended;
    assert.strictEqual(ended.reason, 'failed');
    assert.match(ended.message ?? '', /belongs to the folder "elsewhere".*Open that folder/);
    await assert.rejects(
      services.registry.create({ sessionId: meta.id, command: 'echo should-not-run' }),
      /belongs to the folder "elsewhere"/,
      'no terminal of that session starts here, not even with the default cwd',
    );
    await services.outbox.enqueue({
      key: 't-elsewhere:exit', taskId: 't-elsewhere', sessionId: meta.id, kind: 'exit', command: 'make', status: 'exited',
      exitCode: 0, signal: null, output: '', outputTruncated: false, at: Date.now(),
    });
    assert.strictEqual(await services.wakeups.drain(meta.id), 'elsewhere');
    const pending = (await services.outbox.entries(meta.id)).filter((e) => e.state === 'pending').map((e) => e.key);
    assert.deepStrictEqual(pending, ['t-elsewhere:exit'], 'the completion waits for a window of its folder');
  });
});
