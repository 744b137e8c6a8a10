// A turn outlives its window: a window (a process of its own) starts a turn whose answer streams for a
// while and goes mid-answer (a reload, or SIGKILL of its extension host); the next window takes the turn
// back and the same agent process finishes it, every part of the answer in the transcript exactly once,
// never marked interrupted. Its relay killed instead: the turn ends as a crash does, offered for Resume.

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { isAlive } from '../../../src/extension/core/common/processTree';
import { listRelays } from '../../../src/extension/core/relay/relayPlace';
import type { SupervisorEvent } from '../../../src/extension/core/supervisor/supervisorEvents';
import { VigilServices } from '../../../src/extension/services';
import { fakeSpec, until } from './relayWorld';
import { windowOptions } from './relayWindow';

const windowScript = path.resolve(__dirname, 'relayWindow.js');

interface WindowA {
  child: ChildProcess;
  sessionId: string;
}

async function openWindowA(root: string, workspace: string, prompt: string): Promise<WindowA> {
  const child = spawn(process.execPath, [windowScript, path.join(root, 'storage'), workspace, prompt], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`window A exited (${code}) before the answer streamed`)));
  });
  return { child, sessionId: /^streaming (\S+)$/.exec(line)![1] };
}

function gone(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

function chunksOf(records: readonly { type: string }[]): string {
  return records
    .filter((r) => r.type === 'agentUpdate')
    .map((r) => (r as unknown as { update: { sessionUpdate?: string; content?: { text?: string } } }).update)
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => u.content?.text ?? '')
    .join('');
}

describe('a turn outlives its window (relay)', function () {
  this.timeout(60_000);
  let root: string;
  let workspace: string;
  let b: VigilServices | undefined;
  let a: WindowA | undefined;

  beforeEach(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-takeback-'));
    workspace = path.join(root, 'workspace');
    await fs.mkdir(workspace);
  });
  afterEach(async () => {
    b?.dispose();
    b = undefined;
    a?.child.kill('SIGKILL');
    for (const relay of await listRelays(path.join(root, 'storage'))) {
      for (const pid of [relay.state?.pid, relay.state?.agentPid]) if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    await fs.rm(root, { recursive: true, force: true });
  });

  async function takeBack(sessionId: string, overrides: Partial<Parameters<typeof VigilServices.start>[0]> = {}): Promise<{ events: SupervisorEvent[] }> {
    const events: SupervisorEvent[] = [];
    b = await VigilServices.start({ ...windowOptions(path.join(root, 'storage'), workspace, 'window-b'), ...overrides });
    b.supervisor.subscribe((e) => events.push(e));
    await until(() => events.find((e) => e.type === 'turnEnded' && e.ended.sessionId === sessionId) ?? (b!.supervisor.getSnapshot(sessionId) ? undefined : events.find((e) => e.type === 'turnEnded')), 'the turn to end in window B', 40_000);
    return { events };
  }

  for (const how of ['reload', 'SIGKILL'] as const) {
    it(`the same agent finishes the turn after a ${how} of its window, the whole answer once, never interrupted`, async () => {
      a = await openWindowA(root, workspace, 'stream-slow 12 150');
      const agentPid = (await listRelays(path.join(root, 'storage')))[0].state!.agentPid;
      if (how === 'reload') a.child.stdin!.write('leave\n');
      else a.child.kill('SIGKILL');
      await gone(a.child);
      const { events } = await takeBack(a.sessionId);
      const ended = events.find((e) => e.type === 'turnEnded');
      assert.ok(ended && ended.type === 'turnEnded');
      assert.equal(ended.ended.reason, 'completed', JSON.stringify(ended.ended));
      const { records } = await b!.supervisor.sessions.readAll(a.sessionId);
      const said = chunksOf(records);
      for (let i = 0; i < 12; i += 1) assert.equal(said.split(`slow ${i} `).length, 2, `part ${i} exactly once in: ${said}`);
      assert.ok(!records.some((r) => r.type === 'interrupted'), 'never marked interrupted');
      assert.equal(records.filter((r) => r.type === 'turnStarted').length, 1, 'one turn, taken back, not a second one');
      assert.equal((await b!.supervisor.sessions.get(a.sessionId))!.state, 'idle');
      assert.ok(isAlive(agentPid), 'the same agent process finished it (and still serves the session)');
      assert.equal(b!.agents.pidOf(a.sessionId), agentPid);
    });
  }

  it('a window that started without the person\'s agent settings still takes the turn back, on the agent the relay runs', async () => {
    a = await openWindowA(root, workspace, 'stream-slow 8 150');
    const agentPid = (await listRelays(path.join(root, 'storage')))[0].state!.agentPid;
    a.child.stdin!.write('leave\n');
    await gone(a.child);
    // This window cannot tell which agent was chosen: a launch for a new agent would wait (for good, here), and
    // the settings it has name another agent than the one behind the relay.
    const purposes: unknown[] = [];
    const warnings: string[] = [];
    const { events } = await takeBack(a.sessionId, {
      launchFor: (_sessionId, purpose) => {
        purposes.push(purpose);
        return purpose?.takingBack ? Promise.resolve({ ...fakeSpec(), label: 'built-in agent', command: '/nonexistent/node', args: ['agent.js'], builtin: true }) : new Promise(() => undefined);
      },
      logger: { trace() {}, debug() {}, info() {}, error() {}, warn: (line: string) => warnings.push(line) },
    });
    const ended = events.find((e) => e.type === 'turnEnded');
    assert.ok(ended && ended.type === 'turnEnded');
    assert.equal(ended.ended.reason, 'completed', JSON.stringify(ended.ended));
    assert.deepEqual(purposes, [{ takingBack: true }], 'the take-back asked for no new agent');
    const said = chunksOf((await b!.supervisor.sessions.readAll(a.sessionId)).records);
    for (let i = 0; i < 8; i += 1) assert.equal(said.split(`slow ${i} `).length, 2, `part ${i} exactly once in: ${said}`);
    assert.equal(b!.agents.pidOf(a.sessionId), agentPid, 'the same agent process finished it');
    assert.ok(warnings.some((w) => /settings name built-in agent .*runs on fake agent/.test(w)), `the log names both agents: ${warnings.join(' | ')}`);
  });

  it('a window that goes while it takes the turn back leaves it to the next window, which finishes it', async () => {
    a = await openWindowA(root, workspace, 'stream-slow 8 150');
    const agentPid = (await listRelays(path.join(root, 'storage')))[0].state!.agentPid;
    a.child.stdin!.write('leave\n');
    await gone(a.child);
    // Window B is reloaded in the middle of its take-back: its launch answers only after it began to leave.
    const windowB = spawn(process.execPath, [windowScript, path.join(root, 'storage'), workspace, 'take-back'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const saidB: string[] = [];
    readline.createInterface({ input: windowB.stdout! }).on('line', (line) => saidB.push(line));
    await until(() => saidB.includes('launching') || undefined, 'window B to take the turn back');
    windowB.stdin!.write('leave\n');
    await gone(windowB);
    assert.deepEqual(saidB, ['launching'], 'window B ended nothing');
    assert.ok(isAlive(agentPid), 'the agent still runs');
    const { events: later } = await takeBack(a.sessionId, { windowId: 'window-c' });
    const ended = later.find((e) => e.type === 'turnEnded');
    assert.ok(ended && ended.type === 'turnEnded');
    assert.equal(ended.ended.reason, 'completed', JSON.stringify(ended.ended));
    const said = chunksOf((await b!.supervisor.sessions.readAll(a.sessionId)).records);
    for (let i = 0; i < 8; i += 1) assert.equal(said.split(`slow ${i} `).length, 2, `part ${i} exactly once in: ${said}`);
    assert.equal(b!.agents.pidOf(a.sessionId), agentPid, 'the same agent process finished it');
  });

  it('the relay killed while no window is attached: the turn ends as a crash does, offered for Resume', async () => {
    a = await openWindowA(root, workspace, 'stream-slow 40 150');
    const relay = (await listRelays(path.join(root, 'storage')))[0].state!;
    a.child.kill('SIGKILL');
    await gone(a.child);
    process.kill(relay.pid, 'SIGKILL');
    process.kill(relay.agentPid, 'SIGKILL');
    await until(() => (!isAlive(relay.pid) && !isAlive(relay.agentPid)) || undefined, 'the relay to die');
    b = await VigilServices.start({ ...windowOptions(path.join(root, 'storage'), workspace, 'window-b') });
    const meta = await b.supervisor.sessions.get(a.sessionId);
    assert.equal(meta!.state, 'interrupted');
    assert.ok((await b.supervisor.listResumable()).some((m) => m.id === a!.sessionId), 'offered for Resume');
  });
});
