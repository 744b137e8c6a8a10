// The faults of a turn that outlives its window (docs/turn-supervisor.md, The detached state), each with real
// processes: a window (its own process) parks its turn on an approval (or a wakeup turn on one) and then reloads,
// dies or freezes; the next windows' services take the turn back, or refuse a relay of another Vigil version.
// Every wait is on something a process said (a line, an approval shown, a turn's end), never on time.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { isAlive } from '../../../src/extension/core/common/processTree';
import { listRelays } from '../../../src/extension/core/relay/relayPlace';
import { leaseFile } from '../../../src/extension/core/store/storePaths';
import { agentRecord, chunksOf, openNextWindow, WindowProcess, type NextWindow } from './relayFaultWorld';
import { until } from './relayWorld';

const permissionId = 1000;

describe('a turn outlives its window: the faults', function () {
  this.timeout(60_000);
  let root: string;
  let storage: string;
  let workspace: string;
  let recordFile: string;
  let windows: NextWindow[] = [];
  let a: WindowProcess | undefined;
  const saved = { ...process.env };

  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-relayfaults-'));
    storage = path.join(root, 'storage');
    workspace = path.join(root, 'workspace');
    recordFile = path.join(root, 'agent.jsonl');
    await fs.mkdir(workspace);
    // Read by the windows here and, through the environment, by those in their own processes and by the agent.
    process.env.VIGIL_TEST_APPROVALS = 'execute,edit';
    process.env.FAKE_AGENT_RECORD = recordFile;
  });
  afterEach(async () => {
    for (const w of windows) w.services.dispose();
    windows = [];
    if (a && !a.exited) {
      a.child.kill('SIGCONT');
      a.child.kill('SIGKILL');
    }
    a = undefined;
    for (const relay of await listRelays(storage)) {
      for (const pid of [relay.state?.pid, relay.state?.agentPid]) if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    process.env = { ...saved };
    await fs.rm(root, { recursive: true, force: true });
  });

  async function next(windowId: string, extra = {}): Promise<NextWindow> {
    const w = await openNextWindow(storage, workspace, windowId, extra);
    windows.push(w);
    return w;
  }

  /** Window A's turn, parked on the agent's permission question; returns the session and A's question. */
  async function parkedOnApproval(env: NodeJS.ProcessEnv = {}): Promise<{ sessionId: string; requestId: string }> {
    a = WindowProcess.open(storage, workspace, 'permission-then-stream 3', env);
    const [, sessionId, requestId] = await a.next(/^asking (\S+) (\S+)$/);
    return { sessionId, requestId };
  }

  async function transcript(w: NextWindow, sessionId: string) {
    return (await w.services.supervisor.sessions.readAll(sessionId)).records;
  }

  /** The agent's permission question was answered once, with `optionId`, and the turn went on with it, once. */
  async function answeredOnce(w: NextWindow, sessionId: string, optionId: string): Promise<void> {
    const answers = (await agentRecord(recordFile)).filter((r) => r.answer === permissionId);
    assert.equal(answers.length, 1, `the agent got one answer: ${JSON.stringify(answers)}`);
    assert.equal(answers[0].result?.outcome?.optionId, optionId);
    const said = chunksOf(await transcript(w, sessionId));
    assert.equal(said.split(`"optionId":"${optionId}"`).length, 2, `the answer once in: ${said}`);
    for (let i = 0; i < 3; i += 1) assert.equal(said.split(`after ${i} `).length, 2, `part ${i} once in: ${said}`);
  }

  it('1. a reload during an approval: the next window asks at once, the answer reaches the agent once, the old question is withdrawn', async () => {
    const { sessionId, requestId } = await parkedOnApproval();
    a!.send('leave');
    await a!.gone();
    const b = await next('window-b');
    const asked = await b.question();
    // Only the question of the window that runs the turn is left for other windows; the old one cannot be answered.
    const published = await b.services.crossWindow.mailbox.listApprovals(sessionId);
    assert.deepEqual(published.map((q) => q.windowId), ['window-b']);
    assert.notEqual((await b.services.crossWindow.control.answer(sessionId, requestId, 'reject')).kind, 'won');
    b.broker.answer(asked.requestId, 'allowOnce');
    assert.equal((await b.ended(sessionId)).ended.reason, 'completed');
    await answeredOnce(b, sessionId, 'y');
    const records = await transcript(b, sessionId);
    assert.ok(!records.some((r) => r.type === 'interrupted'), 'never interrupted');
    assert.equal(records.filter((r) => r.type === 'turnStarted').length, 1);
  });

  it('2. a reload while the teardown drain\'s wakeup turn runs: the wakeup is delivered once, never lost, never twice', async () => {
    process.env.FAKE_AGENT_WAKEUP_ASKS = '1';
    process.env.VIGIL_TEST_APPROVALS = 'edit';
    const background = { command: 'sh', args: ['-c', 'echo done'], _meta: { vigil: { background: true, notify: { onExit: true } } } };
    // The task ends while the turn still waits on a command of its own: its completion waits for the teardown drain.
    const plan = [{ start: background }, { terminal: { command: 'sh', args: ['-c', 'sleep 1'] } }];
    a = WindowProcess.open(storage, workspace, `script ${JSON.stringify(plan)}`);
    await a.next(/^ended completed$/);
    const [, sessionId] = await a.next(/^asking (\S+) (\S+)$/);
    a.send('leave');
    await a.gone();
    const b = await next('window-b');
    b.broker.answer((await b.question()).requestId, 'allowOnce');
    assert.equal((await b.ended(sessionId)).ended.reason, 'completed');
    await b.services.wakeups.sweep();
    await b.services.wakeups.idle();
    const entries = await b.services.outbox.entries(sessionId);
    assert.deepEqual(entries.map((e) => e.state), ['delivered'], JSON.stringify(entries));
    const wakeups = (await agentRecord(recordFile)).filter((r) => r.prompt?.includes('Background task'));
    assert.equal(wakeups.length, 1, `one wakeup reached the agent: ${JSON.stringify(wakeups)}`);
    const records = await transcript(b, sessionId);
    assert.equal(records.filter((r) => r.type === 'turnStarted').length, 2, 'the turn and its wakeup, no other');
    assert.ok(!records.some((r) => r.type === 'interrupted'), 'never interrupted');
  });

  it('3. two windows racing to take the turn back: one does, the other follows it, never attaches, never interrupts', async () => {
    const { sessionId } = await parkedOnApproval();
    a!.child.kill('SIGKILL');
    await a!.gone();
    const [b, c] = await Promise.all([next('window-b'), next('window-c')]);
    const holders = [b, c].filter((w) => w.services.supervisor.getSnapshot(sessionId) !== undefined);
    assert.equal(holders.length, 1, 'exactly one window took the turn back');
    const [winner, loser] = holders[0] === b ? [b, c] : [c, b];
    const winnerId = winner === b ? 'window-b' : 'window-c';
    assert.equal(loser.services.agents.pidOf(sessionId), undefined, 'the other never attached to the relay');
    assert.equal((await loser.services.crossWindow.control.remoteHolder(sessionId))?.windowId, winnerId, 'the other follows the turn');
    winner.broker.answer((await winner.question()).requestId, 'allowOnce');
    assert.equal((await winner.ended(sessionId)).ended.reason, 'completed');
    await answeredOnce(winner, sessionId, 'y');
    assert.equal(loser.asked.length, 0);
    assert.ok(!loser.logged.some((l) => /refused/.test(l)), loser.logged.join('\n'));
    const records = await transcript(winner, sessionId);
    assert.ok(!records.some((r) => r.type === 'interrupted'), 'never interrupted');
    assert.equal((await winner.services.supervisor.sessions.get(sessionId))!.state, 'idle');
  });

  for (const how of ['state', 'welcome'] as const) {
    it(`4. a relay of another version (its ${how} says so): refused by name and stopped, the turn interrupted and offered for Resume`, async () => {
      const { sessionId } = await parkedOnApproval();
      const [relay] = await listRelays(storage);
      a!.child.kill('SIGKILL');
      await a!.gone();
      for (const pid of [relay.state!.pid, relay.state!.agentPid]) process.kill(pid, 'SIGKILL');
      await until(() => (!isAlive(relay.state!.pid) && !isAlive(relay.state!.agentPid)) || undefined, 'the relay to die');
      const old = spawn(process.execPath, [path.join(__dirname, 'agentRelayOld.js'), relay.dir, relay.state!.socket, how], { stdio: ['ignore', 'pipe', 'inherit'] });
      const oldGone = new Promise<void>((resolve) => old.once('exit', () => resolve()));
      const ready = JSON.parse(await new Promise<string>((resolve) => readline.createInterface({ input: old.stdout }).once('line', resolve))) as { agentPid: number };
      const b = await next('window-b');
      await until(async () => (await b.services.supervisor.sessions.get(sessionId))?.state === 'interrupted' || undefined, 'the turn to be marked interrupted');
      await oldGone;
      await until(() => !isAlive(ready.agentPid) || undefined, "the old relay's agent to be stopped");
      assert.ok((await b.services.supervisor.listResumable()).some((m) => m.id === sessionId), 'offered for Resume');
      const records = await transcript(b, sessionId);
      const said = JSON.stringify(records.filter((r) => r.type === 'interrupted' || r.type === 'notice' || r.type === 'turnEnded'));
      assert.match(said, /another version of Vigil/, said);
      await until(() => b.services.supervisor.getSnapshot(sessionId) === undefined || undefined, 'the turn to end: nothing hangs');
    });
  }

  it('5. the old window frozen: the next takes the turn back through the reclaim, and the old one, woken, neither writes nor answers', async () => {
    const ttl = 1_500;
    const { sessionId } = await parkedOnApproval({ VIGIL_TEST_LEASE_TTL: String(ttl) });
    const agentPid = (await listRelays(storage))[0].state!.agentPid;
    a!.child.kill('SIGSTOP');
    // The frozen window's lease lapses (it renews nothing), as a hung extension host's does.
    await until(async () => {
      const lease = JSON.parse(await fs.readFile(leaseFile(storage, sessionId), 'utf8')) as { expiresAt: number };
      return Date.now() > lease.expiresAt || undefined;
    }, 'the frozen window\'s lease to lapse');
    // Only the frozen window's lease is short: the one taking the turn back must not lapse itself on a loaded machine.
    const b = await next('window-b');
    const asked = await b.question();
    const from = a!.lines.length;
    a!.child.kill('SIGCONT');
    a!.send('answer reject');
    await a!.next(/^answered \d+$/, from);
    await a!.next(/^ended \S+$/, from);
    b.broker.answer(asked.requestId, 'allowOnce');
    assert.equal((await b.ended(sessionId)).ended.reason, 'completed');
    await answeredOnce(b, sessionId, 'y');
    const records = await transcript(b, sessionId);
    assert.equal(records.filter((r) => r.type === 'turnEnded').length, 1, `only the window that holds the turn wrote its end: ${JSON.stringify(records.filter((r) => r.type === 'turnEnded'))}`);
    assert.ok(!records.some((r) => r.type === 'interrupted'), 'never interrupted');
    assert.ok(isAlive(agentPid), 'the woken window stopped nothing');
    assert.equal(b.services.agents.pidOf(sessionId), agentPid);
  });
});
