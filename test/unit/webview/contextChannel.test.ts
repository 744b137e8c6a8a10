// The session view channel and reducer for prompt context and elicitations: a mention query is
// answered with `mentions` under its request id, answers reach the controller, and open elicitations
// survive a reload (they are part of the snapshot) until the host resolves them.

import * as assert from 'node:assert/strict';
import type { Logger } from '../../../src/extension/core/ports/logger';
import { SessionViewChannel } from '../../../src/extension/presentation/sessionViewChannel';
import type { IntentHandlers } from '../../../src/extension/presentation/viewHandlers';
import { composerHandlers, type ComposerPorts } from '../../../src/extension/presentation/handlers/composer';
import { TranscriptTranslator } from '../../../src/extension/presentation/transcriptTranslator';
import type { ElicitationView } from '../../../src/shared/sessionView';
import { applyHostEvent } from '../../../src/shared/sessionViewReducer';
import type { HostMessage } from '../../../src/shared/webviewProtocol';
import { parseHostMessage } from '../../../src/shared/webviewProtocol';
import { ModelStub, recordingHandlers, snapshotWith, stubSurface } from './viewBuilders';

const quiet: Logger = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function setup(overrides: Partial<IntentHandlers> = {}) {
  const posted: HostMessage[] = [];
  const calls: [string, unknown][] = [];
  const model = new ModelStub();
  const channel = new SessionViewChannel((m) => void posted.push(m), stubSurface(() => model.snapshot), recordingHandlers(calls, overrides), quiet);
  model.channel = channel;
  return { channel, model, posted, calls };
}

const form: ElicitationView = { requestId: 'r1', mode: 'form', message: 'Fill <b>in</b>', schema: { type: 'object', properties: { n: { type: 'integer' } } }, at: 1 };

describe('session view channel: prompt context and elicitations', () => {
  it('answers a mention query with the controller\'s items under its request id', async () => {
    const found = async (_sessionId: string | undefined, query: string) => ({ items: [{ kind: 'file' as const, path: `${query}.ts` }], images: true });
    const { mentionQuery } = composerHandlers(() => ({ mentions: { choices: found } }) as unknown as ComposerPorts);
    const { channel, posted } = setup({ mentionQuery });
    await channel.receive({ type: 'ready', id: 'w1' });
    await channel.receive({ type: 'mentionQuery', id: 'w2', query: 'abc' });
    const answer = posted.find((m) => m.type === 'mentions');
    assert.deepEqual(answer, { type: 'mentions', requestId: 'w2', items: [{ kind: 'file', path: 'abc.ts' }], images: true });
    assert.equal(parseHostMessage(answer).ok, true);
  });

  it('passes prompts with mentions, elicitation answers and link opens to the controller', async () => {
    const { channel, calls } = setup();
    await channel.receive({ type: 'prompt', id: 'w1', text: '', mentions: [{ kind: 'file', path: 'a.ts' }] });
    await channel.receive({ type: 'elicitation', id: 'w2', requestId: 'r1', action: 'accept', content: { n: 1 } });
    await channel.receive({ type: 'openElicitationUrl', id: 'w3', requestId: 'r2' });
    assert.deepEqual(calls, [
      ['prompt', { text: '', mentions: [{ kind: 'file', path: 'a.ts' }] }],
      ['elicitation', { requestId: 'r1', action: 'accept', content: { n: 1 } }],
      ['openElicitationUrl', { requestId: 'r2' }],
    ]);
  });

  it('open elicitations are in the snapshot a reloaded view gets, until resolved; a settled turn does not drop them', async () => {
    let s = applyHostEvent(snapshotWith(), { type: 'elicitationRequested', elicitation: form });
    s = applyHostEvent(s, { type: 'turnStatusChanged', turn: { phase: 'idle', silenceSeconds: 0 } });
    assert.deepEqual(s.elicitations, [form]);
    const { channel, model, posted } = setup();
    model.postSnapshot(s);
    await channel.receive({ type: 'ready', id: 'w1' });
    const snap = posted[0];
    assert.ok(snap.type === 'snapshot');
    assert.deepEqual(snap.snapshot.elicitations, [form]);
    assert.equal(parseHostMessage(snap).ok, true);
    assert.deepEqual(applyHostEvent(s, { type: 'elicitationResolved', requestId: 'r1' }).elicitations, []);
  });

  it('a reloaded transcript shows what was attached to a prompt (names and links)', () => {
    const t = new TranscriptTranslator();
    const [event] = t.translate({ type: 'userPrompt', at: 5, source: 'user', text: 'look', attachments: [{ kind: 'file', name: 'a.ts', uri: 'file:///w/a.ts', size: 3 }, { kind: 'image', name: 'p.png', size: 9 }] });
    assert.ok(event.type === 'entryAppended' && event.entry.kind === 'user');
    assert.deepEqual(event.entry.kind === 'user' && event.entry.attachments, [{ kind: 'file', name: 'a.ts', uri: 'file:///w/a.ts', size: 3 }, { kind: 'image', name: 'p.png', size: 9 }]);
  });
});
