// A Vigil session continues in the agent's own session: after a crash, a reload (a new provider on the
// same storage root) or another window, the agent is asked to resume (or load) the id Vigil kept;
// its session is closed when the process is released and deleted with Vigil's. Driven against
// fakeResumeAgent, which keeps its sessions on disk and records every request it got.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { AcpAgentHandle } from '../../../src/extension/core/acp/acpAgentHandle';
import { customLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { launchIdentity } from '../../../src/extension/core/acp/agentSessionBinding';
import { AgentSessionRecords } from '../../../src/extension/core/store/agentSessionRecords';
import { isAlive } from './acpHarness';
import { answers, fakeLaunch, fakeResumeAgent, sessionId, Window, World } from './agentSessionWorld';

describe('agent sessions: resume, load, close and delete in the agent', function () {
  this.timeout(60_000);
  let w: World;

  beforeEach(async () => {
    w = await World.create();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('a restart after a crash resumes the same agent session: no new session, no replay, the agent remembers', async () => {
    const win = await Window.open(w, fakeLaunch(w, ['--resume', '--close']), 'A');
    assert.equal((await win.turn('say one')).reason, 'completed');
    const firstPid = await win.pid();
    assert.equal((await win.turn('crash')).reason, 'failed');
    assert.ok(!isAlive(firstPid));
    assert.equal((await win.turn('recall')).reason, 'completed');
    assert.notEqual(await win.pid(), firstPid);
    assert.deepEqual(await w.methods(), ['initialize', 'session/new', 'initialize', 'session/resume']);
    const calls = await w.calls();
    const created = calls.find((c) => c.method === 'session/new');
    const resumed = calls.find((c) => c.method === 'session/resume');
    assert.ok(created && resumed);
    assert.equal(created.pid, firstPid);
    // The agent's session id is the one session/new gave the first process (the agent names them by pid).
    assert.match(String(resumed.sessionId), new RegExp(`^fake-${firstPid}-`));
    assert.deepEqual(resumed.mcpServers, [{ name: 'tasks', command: '/bin/true', args: [], env: [] }], 'resume carries the MCP servers too');
    assert.deepEqual((await answers(win)).slice(-1), ['I remember: say one'], 'the agent continued its own conversation');
    assert.deepEqual(win.notices(), [], 'nobody is told the conversation was lost: it was not');
  });

  it('a reload (a new provider on the same storage) resumes the session the agent kept; the old process closed it', async () => {
    const a = await Window.open(w, fakeLaunch(w, ['--resume', '--close']), 'A');
    assert.equal((await a.turn('say one')).reason, 'completed');
    const bound = await w.binding();
    assert.ok(bound, 'the agent session id is kept durably');
    await a.close();
    const b = await Window.open(w, fakeLaunch(w, ['--resume', '--close']), 'B');
    assert.equal((await b.turn('recall')).reason, 'completed');
    assert.deepEqual(await w.methods(), ['initialize', 'session/new', 'session/close', 'initialize', 'session/resume']);
    const calls = await w.calls();
    assert.equal(calls.find((c) => c.method === 'session/close')?.sessionId, bound.agentSessionId);
    assert.equal(calls.find((c) => c.method === 'session/resume')?.sessionId, bound.agentSessionId);
    assert.deepEqual((await answers(b)).slice(-1), ['I remember: say one']);
  });

  for (const late of [false, true]) {
    it(`load: the agent's replay${late ? ' (even one sent after its answer)' : ''} is not written into the transcript nor shown again`, async () => {
      const flags = ['--load', ...(late ? ['--replay-late'] : [])];
      const a = await Window.open(w, fakeLaunch(w, flags), 'A');
      assert.equal((await a.turn('say alpha')).reason, 'completed');
      await a.close();
      const b = await Window.open(w, fakeLaunch(w, flags), 'B');
      assert.equal((await b.turn('say beta')).reason, 'completed');
      // The barrier after the load: what the agent wrote before its answer to it is in, and dropped.
      assert.deepEqual(await w.methods(), ['initialize', 'session/new', 'initialize', 'session/load', '_vigil/replay_barrier']);
      const { records } = await b.sup.sessions.readAll(sessionId);
      const texts = records.flatMap((r) => (r.type === 'agentUpdate' ? [JSON.stringify(r.update)] : r.type === 'userPrompt' ? [r.text] : []));
      assert.equal(texts.filter((t) => t.includes('alpha')).length, 2, `alpha is in the transcript once as the prompt and once as the answer: ${texts.join(' / ')}`);
      assert.ok(!texts.some((t) => t.includes('user_message_chunk')), 'no replayed user message was recorded');
      assert.deepEqual(await answers(b), ['echo: alpha', 'echo: beta']);
      assert.ok(!b.events.some((e) => e.type === 'activity' && /alpha/.test(JSON.stringify(e))), 'the replay never reached the view as activity');
    });
  }

  it('an agent that no longer knows the id: falls back to a new session, says so once, and keeps the new id', async () => {
    const a = await Window.open(w, fakeLaunch(w, ['--resume']), 'A');
    assert.equal((await a.turn('say one')).reason, 'completed');
    await a.close();
    await fs.rm(path.join(w.agentState, 'sessions'), { recursive: true });
    const b = await Window.open(w, fakeLaunch(w, ['--resume']), 'B');
    assert.equal((await b.turn('recall')).reason, 'completed');
    assert.deepEqual((await answers(b)).slice(-1), ['I remember: nothing']);
    assert.equal(b.notices().length, 1, b.notices().join('\n'));
    assert.match(b.notices()[0], /could not resume its earlier session \(Resource not found.*\), so it starts without the earlier conversation/);
    assert.equal((await b.turn('say two')).reason, 'completed');
    assert.equal(b.notices().length, 1, 'said once');
    const bound = await w.binding();
    assert.ok(bound && (await w.agentSessionIds()).includes(bound.agentSessionId), 'the new id is the one kept');
    await b.close();
    const c = await Window.open(w, fakeLaunch(w, ['--resume']), 'C');
    assert.equal((await c.turn('recall')).reason, 'completed');
    assert.deepEqual((await answers(c)).slice(-1), ['I remember: recall | say two']);
    assert.equal(c.notices().length, 0);
  });

  it('an agent that never answers the resume: the bound ends the wait, a new session starts, the person is told', async () => {
    const a = await Window.open(w, fakeLaunch(w, ['--resume']), 'A');
    assert.equal((await a.turn('say one')).reason, 'completed');
    await a.close();
    w.openTimeoutMs = 300;
    const b = await Window.open(w, fakeLaunch(w, ['--resume', '--hang-open']), 'B');
    // Another launch (an extra flag) would not be asked to resume: keep the kept id its own.
    const bound = await w.binding();
    await new AgentSessionRecords(w.storage, { trace() {}, debug() {}, info() {}, warn() {}, error() {} }).write(sessionId, { ...bound!, launch: launchIdentity(customLaunch({ command: process.execPath, args: [fakeResumeAgent, '--state', w.agentState, '--resume', '--hang-open'] })) });
    assert.equal((await b.turn('recall')).reason, 'completed');
    assert.deepEqual(await w.methods(), ['initialize', 'session/new', 'initialize', 'session/resume', '$/cancel_request', 'session/new']);
    assert.match(b.notices().join('\n'), /could not resume its earlier session \(.* did not answer "session\/resume" within 0.3 s\)/);
  });

  it('a changed vigil.agent does not resume the other agent\'s id: a new session, and the person is told', async () => {
    const a = await Window.open(w, fakeLaunch(w, ['--resume']), 'A');
    assert.equal((await a.turn('say one')).reason, 'completed');
    await a.close();
    const b = await Window.open(w, fakeLaunch(w, ['--resume', '--close']), 'B');
    assert.equal((await b.turn('recall')).reason, 'completed');
    assert.deepEqual(await w.methods(), ['initialize', 'session/new', 'initialize', 'session/new']);
    assert.match(b.notices().join('\n'), /starts without the earlier conversation: it was held by another agent/);
  });

  it('an agent that can neither resume nor load: a new session each start, and the person is told', async () => {
    const a = await Window.open(w, fakeLaunch(w, []), 'A');
    assert.equal((await a.turn('say one')).reason, 'completed');
    assert.equal((await a.turn('crash')).reason, 'failed');
    assert.equal((await a.turn('recall')).reason, 'completed');
    assert.deepEqual(await w.methods(), ['initialize', 'session/new', 'initialize', 'session/new']);
    assert.match(a.notices().join('\n'), /cannot resume or load sessions, so it starts without the earlier conversation/);
  });

  it('releasing the agent closes its session before the process is stopped; an agent without close is just stopped', async () => {
    const a = await Window.open(w, fakeLaunch(w, ['--resume', '--close']), 'A');
    assert.equal((await a.turn('say one')).reason, 'completed');
    const pid = await a.pid();
    await a.agents.release(sessionId);
    assert.ok(!isAlive(pid));
    const close = (await w.calls()).find((c) => c.method === 'session/close');
    assert.equal(close?.pid, pid);
    assert.equal(close?.sessionId, (await w.binding())?.agentSessionId);

    const b = await Window.open(w, fakeLaunch(w, ['--resume']), 'B');
    assert.equal((await b.turn('say two')).reason, 'completed');
    await b.agents.release(sessionId);
    assert.equal((await w.calls()).filter((c) => c.method === 'session/close').length, 1, 'no close for an agent that did not advertise it');
  });

  it('a closing window (the provider disposed) asks its agents to close their sessions, then stops them', async () => {
    const a = await Window.open(w, fakeLaunch(w, ['--resume', '--close']), 'A');
    assert.equal((await a.turn('say one')).reason, 'completed');
    const handle = (await a.agents.get(sessionId)) as AcpAgentHandle;
    const pid = handle.pid;
    const exited = new Promise((resolve) => handle.onExit(resolve));
    a.agents.dispose();
    await exited;
    assert.ok(!isAlive(pid));
    assert.deepEqual(
      (await w.calls()).filter((c) => c.method === 'session/close').map((c) => c.pid),
      [pid],
    );
  });

  it("deleting the Vigil session deletes the agent's session through the live process", async () => {
    const a = await Window.open(w, fakeLaunch(w, ['--resume', '--delete']), 'A');
    assert.equal((await a.turn('say one')).reason, 'completed');
    const pid = await a.pid();
    const bound = await w.binding();
    await a.sup.sessions.delete(sessionId);
    await a.agents.forget(sessionId);
    assert.ok(!isAlive(pid));
    const del = (await w.calls()).find((c) => c.method === 'session/delete');
    assert.deepEqual([del?.pid, del?.sessionId], [pid, bound?.agentSessionId]);
    assert.deepEqual(await w.agentSessionIds(), [], 'the agent forgot it');
    assert.equal(await w.binding(), undefined, 'and so did Vigil');
  });

  it('deleting after a reload starts the agent only to delete, and only when it said it deletes sessions', async () => {
    const a = await Window.open(w, fakeLaunch(w, ['--resume', '--delete']), 'A');
    assert.equal((await a.turn('say one')).reason, 'completed');
    await a.close();
    const b = await Window.open(w, fakeLaunch(w, ['--resume', '--delete']), 'B');
    await b.sup.sessions.delete(sessionId);
    await b.agents.forget(sessionId);
    assert.deepEqual(await w.methods(), ['initialize', 'session/new', 'initialize', 'session/delete'], 'no session was opened for the delete');
    assert.deepEqual(await w.agentSessionIds(), []);
    assert.equal(await w.binding(), undefined);
  });

  for (const [what, flagsLater] of [
    ['an agent without delete', ['--resume']],
    ['another agent configured since', ['--resume', '--delete', '--other']],
  ] as const) {
    it(`deleting after a reload spawns nothing for ${what}`, async () => {
      const flagsFirst = what === 'an agent without delete' ? ['--resume'] : ['--resume', '--delete'];
      const a = await Window.open(w, fakeLaunch(w, flagsFirst), 'A');
      assert.equal((await a.turn('say one')).reason, 'completed');
      await a.close();
      const before = (await w.calls()).length;
      const b = await Window.open(w, fakeLaunch(w, [...flagsLater]), 'B');
      await b.sup.sessions.delete(sessionId);
      await b.agents.forget(sessionId);
      assert.equal((await w.calls()).length, before, 'no agent process was started');
      assert.equal(await w.binding(), undefined);
    });
  }

  it('two windows in turn: each continues the agent session the other advanced, none talks to a stale copy', async () => {
    const a = await Window.open(w, fakeLaunch(w, ['--resume', '--close']), 'A');
    const b = await Window.open(w, fakeLaunch(w, ['--resume', '--close']), 'B');
    for (let round = 0; round < 3; round += 1) {
      assert.equal((await a.turn(`say a${round}`)).reason, 'completed');
      assert.equal((await b.turn(`say b${round}`)).reason, 'completed');
    }
    assert.equal((await a.turn('recall')).reason, 'completed');
    assert.deepEqual((await answers(a)).slice(-1), ['I remember: say a0 | say b0 | say a1 | say b1 | say a2 | say b2']);
    const ids = new Set((await w.calls()).filter((c) => c.method === 'session/resume').map((c) => c.sessionId));
    assert.equal(ids.size, 1, 'one agent session throughout');
    assert.equal((await w.calls()).filter((c) => c.method === 'session/new').length, 1);
  });

  it('a record that is damaged or names a hostile id is ignored: a new session, nothing crashes', async () => {
    await fs.mkdir(path.join(w.storage, 'agent-sessions'), { recursive: true });
    for (const content of ['{not json', JSON.stringify({ v: 1, launch: 'builtin', agentSessionId: 'x\u0000y', cwd: '/', opener: 'o', supports: { resume: true, load: true, close: true, delete: true }, at: 1 })]) {
      await fs.writeFile(path.join(w.storage, 'agent-sessions', `${sessionId}.json`), content);
      assert.equal(await w.binding(), undefined);
    }
    const a = await Window.open(w, fakeLaunch(w, ['--resume']), 'A');
    assert.equal((await a.turn('say one')).reason, 'completed');
    assert.deepEqual(await w.methods(), ['initialize', 'session/new']);
    assert.ok(await w.binding(), 'replaced by a good record');
  });
});
