// The host end of the webview channel: handshake, ping/pong, validation before any action, errors.

import * as assert from 'node:assert/strict';
import type { Logger } from '../../../src/extension/core/ports/logger';
import { SessionViewChannel } from '../../../src/extension/presentation/sessionViewChannel';
import type { IntentHandlers } from '../../../src/extension/presentation/viewHandlers';
import type { SessionSnapshot } from '../../../src/shared/sessionView';
import type { HostMessage } from '../../../src/shared/webviewProtocol';
import { snapshotTailEntries } from '../../../src/shared/webviewProtocol';
import { ModelStub, agentEntry, longTranscript, recordingHandlers, snapshotWith, stubSurface, userEntry } from './viewBuilders';

class RecordingLogger implements Logger {
  readonly records: { level: string; message: string }[] = [];
  trace(message: string) { this.records.push({ level: 'trace', message }); }
  debug(message: string) { this.records.push({ level: 'debug', message }); }
  info(message: string) { this.records.push({ level: 'info', message }); }
  warn(message: string) { this.records.push({ level: 'warn', message }); }
  error(message: string | Error) { this.records.push({ level: 'error', message: String(message) }); }
}

function setup(overrides: Partial<IntentHandlers> = {}, snapshot?: () => SessionSnapshot, without: (keyof IntentHandlers)[] = []) {
  const posted: HostMessage[] = [];
  const calls: [string, unknown][] = [];
  const model = new ModelStub();
  const surface = stubSurface(snapshot ?? (() => model.snapshot));
  const logger = new RecordingLogger();
  const rejected: string[] = [];
  const channel = new SessionViewChannel((m) => { posted.push(m); return Promise.resolve(true); }, surface, recordingHandlers(calls, overrides, without), logger, { onRejected: (r) => rejected.push(r) });
  model.channel = channel;
  return { channel, model, posted, calls, logger, rejected, surface };
}

describe('session view channel (host side)', () => {
  it('posts nothing before ready, then a snapshot with every earlier event folded in', async () => {
    const { channel, model, posted } = setup();
    model.postSnapshot(snapshotWith([userEntry('u1')]));
    model.postEvent({ type: 'chunkAppended', entryId: 'a1', entryKind: 'agent', text: 'hi', at: 2 });
    assert.equal(posted.length, 0);
    await channel.receive({ type: 'ready', id: 'w1' });
    assert.equal(posted.length, 1);
    const first = posted[0];
    assert.ok(first.type === 'snapshot');
    assert.deepEqual(first.snapshot.entries.map((e) => e.id), ['u1', 'a1']);
    model.postEvent({ type: 'streamEnded', entryId: 'a1' });
    const second = posted[1];
    assert.ok(second.type === 'event');
    assert.equal(second.seq, first.seq + 1, 'events follow the snapshot in sequence');
  });

  it('answers a reload (a second ready) with the current state, not the first snapshot', async () => {
    const { channel, model, posted } = setup();
    model.postSnapshot(snapshotWith([userEntry('u1')]));
    await channel.receive({ type: 'ready', id: 'w1' });
    model.postEvent({ type: 'entryAppended', entry: agentEntry('a1') });
    channel.reset();
    model.postEvent({ type: 'entryAppended', entry: userEntry('u2') });
    assert.equal(posted.length, 2, 'nothing is posted to a webview that is gone');
    await channel.receive({ type: 'ready', id: 'w1' });
    const last = posted[posted.length - 1];
    assert.ok(last.type === 'snapshot');
    assert.deepEqual(last.snapshot.entries.map((e) => e.id), ['u1', 'a1', 'u2']);
  });

  it('asks the surface for the snapshot on ready', async () => {
    const authority = snapshotWith([userEntry('from-store')]);
    const { channel, posted } = setup({}, () => authority);
    channel.postSnapshot(snapshotWith([userEntry('stale')]));
    await channel.receive({ type: 'ready', id: 'w1' });
    const first = posted[0];
    assert.ok(first.type === 'snapshot');
    assert.deepEqual(first.snapshot.entries.map((e) => e.id), ['from-store']);
  });

  it('sends a long session as its tail, then the omitted entries on request, as they were sent', async () => {
    const { channel, model, posted } = setup();
    model.postSnapshot(snapshotWith(longTranscript(10_000)));
    await channel.receive({ type: 'ready', id: 'w1' });
    const first = posted[0];
    assert.ok(first.type === 'snapshot');
    assert.equal(first.snapshot.entries.length, snapshotTailEntries);
    assert.equal(first.omitted, 10_000 - snapshotTailEntries);
    assert.equal(first.snapshot.entries[0].id, longTranscript(10_000)[10_000 - snapshotTailEntries].id);
    // An event lands before the webview asks: it goes out as an event, and history stays as sent.
    model.postEvent({ type: 'entryAppended', entry: userEntry('u0', 'edited') });
    await channel.receive({ type: 'history', id: 'w2', snapshotSeq: first.seq });
    const history = posted[2];
    assert.ok(history.type === 'history');
    assert.equal(history.requestId, 'w2');
    assert.equal(history.entries.length, first.omitted);
    assert.equal(history.entries[0].kind === 'user' && history.entries[0].text, 'question u0');
    await channel.receive({ type: 'history', id: 'w3', snapshotSeq: first.seq });
    assert.equal(posted.length, 3, 'history goes out once; a stale request is ignored');
  });

  it('answers ping with pong carrying the same id, also before ready', async () => {
    const { channel, posted } = setup();
    await channel.receive({ type: 'ping', id: 'probe-7' });
    assert.deepEqual(posted, [{ type: 'pong', id: 'probe-7' }]);
  });

  it('hands each valid intent to the handler of its type', async () => {
    const { channel, calls } = setup();
    await channel.receive({ type: 'prompt', id: 'w1', sessionId: 's1', text: 'hello' });
    await channel.receive({ type: 'stop', id: 'w2', sessionId: 's1' });
    await channel.receive({ type: 'resume', id: 'w3' });
    await channel.receive({ type: 'approval', id: 'w4', requestId: 'p1', decision: 'allowOnce' });
    await channel.receive({ type: 'showTaskOutput', id: 'w5', taskId: 't1' });
    await channel.receive({ type: 'killTask', id: 'w6', taskId: 't1' });
    await channel.receive({ type: 'openSession', id: 'w7' });
    await channel.receive({ type: 'openFile', id: 'w8', path: '/ws/src/a.ts', line: 3 });
    assert.deepEqual(calls, [
      ['prompt', { sessionId: 's1', text: 'hello' }],
      ['stop', { sessionId: 's1' }],
      ['resume', {}],
      ['approval', { requestId: 'p1', decision: 'allowOnce' }],
      ['showTaskOutput', { taskId: 't1' }],
      ['killTask', { taskId: 't1' }],
      ['openSession', {}],
      ['openFile', { path: '/ws/src/a.ts', line: 3 }],
    ]);
  });

  it('forwards Edit, Retry and Regenerate with the message they name; a view without them says so', async () => {
    const { channel, calls } = setup();
    await channel.receive({ type: 'redo', id: 'w1', sessionId: 's1', entryId: 'user-1', how: 'edit', text: 'better' });
    await channel.receive({ type: 'redo', id: 'w2', sessionId: 's1', entryId: 'user-1', how: 'retry' });
    assert.deepEqual(calls, [
      ['redo', { sessionId: 's1', entryId: 'user-1', how: 'edit', text: 'better' }],
      ['redo', { sessionId: 's1', entryId: 'user-1', how: 'retry' }],
    ]);
    const without = setup({}, undefined, ['redo']);
    await without.channel.receive({ type: 'redo', id: 'w3', entryId: 'user-1', how: 'retry' });
    assert.deepEqual(without.posted.at(-1), { type: 'error', requestId: 'w3', message: 'This view cannot handle "redo" messages.' });
  });

  it('rejects and logs a hostile message without acting on it', async () => {
    const { channel, calls, posted, logger, rejected } = setup();
    await channel.receive(JSON.parse('{"type":"killTask","id":"w1","taskId":"t1","__proto__":{"x":1}}'));
    await channel.receive({ type: 'prompt', id: 'w2', text: 'x'.repeat(1_000_000) });
    await channel.receive({ type: 'runShell', id: 'w3', command: 'rm -rf /' });
    assert.equal(calls.length, 0);
    assert.equal(posted.length, 0);
    assert.equal(rejected.length, 3);
    const warnings = logger.records.filter((r) => r.level === 'warn').map((r) => r.message);
    assert.equal(warnings.length, 3);
    assert.match(warnings[0], /rejected webview message: message "killTask": forbidden key "__proto__"/);
    assert.match(warnings[1], /larger than|Too big/);
    assert.match(warnings[2], /message "runShell"/);
  });

  it('answers a failing intent with an error naming its request id, and logs it', async () => {
    const { channel, posted, logger } = setup({ prompt: () => Promise.reject(new Error('session is busy in another window')) });
    await channel.receive({ type: 'prompt', id: 'w9', text: 'hi' });
    assert.deepEqual(posted, [{ type: 'error', requestId: 'w9', message: 'session is busy in another window' }]);
    assert.ok(logger.records.some((r) => r.level === 'error' && /prompt.*busy/.test(r.message)));
  });

  it('logs what the webview reports it dropped', async () => {
    const { channel, logger } = setup();
    await channel.receive({ type: 'error', id: 'w1', message: 'webview dropped a host message: entries.3.kind' });
    assert.ok(logger.records.some((r) => r.level === 'warn' && /entries\.3\.kind/.test(r.message)));
  });

  it('survives a post that throws or rejects', async () => {
    const logger = new RecordingLogger();
    const surface = stubSurface(() => snapshotWith());
    const handlers = recordingHandlers([]);
    const throwing = new SessionViewChannel(() => { throw new Error('disposed'); }, surface, handlers, logger);
    await throwing.receive({ type: 'ping', id: 'w1' });
    const rejecting = new SessionViewChannel(() => Promise.reject(new Error('gone')), surface, handlers, logger);
    await rejecting.receive({ type: 'ping', id: 'w1' });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(logger.records.filter((r) => /post to webview failed/.test(r.message)).length, 2);
  });

  it('Copy puts the Markdown the host holds for that message on the clipboard, masked, and nothing else', async () => {
    const copied: string[] = [];
    const posted: HostMessage[] = [];
    const { model, surface } = setup();
    const channel = new SessionViewChannel((m) => { posted.push(m); }, surface, recordingHandlers([]), new RecordingLogger(), {}, (m) => JSON.parse(JSON.stringify(m).replace(/sk-secret/g, '***')) as typeof m, (text) => copied.push(text));
    model.channel = channel;
    model.postSnapshot(snapshotWith([userEntry('u1', 'my question'), agentEntry('a1', '**answer** with sk-secret'), { kind: 'thought', id: 't1', text: 'hm', streaming: false, at: 1 }]));
    await channel.receive({ type: 'ready', id: 'w1' });
    await channel.receive({ type: 'copyEntry', id: 'w2', sessionId: 's1', entryId: 'a1' });
    await channel.receive({ type: 'copyEntry', id: 'w3', sessionId: 's1', entryId: 'u1' });
    assert.deepEqual(copied, ['**answer** with ***', 'my question']);
    await channel.receive({ type: 'copyEntry', id: 'w4', sessionId: 's1', entryId: 't1' });
    await channel.receive({ type: 'copyEntry', id: 'w5', sessionId: 's1', entryId: 'nope' });
    await channel.receive({ type: 'copyEntry', id: 'w6', sessionId: 'other', entryId: 'a1' });
    await channel.receive({ type: 'copyEntry', id: 'w7', sessionId: 's1', entryId: 'a1', text: 'made up by the view' });
    assert.equal(copied.length, 2, 'a thought, an unknown entry, another session and a message carrying text copy nothing');
    const errors = posted.filter((m) => m.type === 'error').map((m) => (m.type === 'error' ? m.requestId : ''));
    assert.deepEqual(errors, ['w4', 'w5', 'w6']);
  });

  it('Copy without a clipboard says so', async () => {
    const { channel, model, posted } = setup();
    model.postSnapshot(snapshotWith([userEntry('u1')]));
    await channel.receive({ type: 'ready', id: 'w1' });
    await channel.receive({ type: 'copyEntry', id: 'w2', sessionId: 's1', entryId: 'u1' });
    const error = posted.find((m) => m.type === 'error');
    assert.ok(error?.type === 'error' && /cannot copy/.test(error.message));
  });
});
