// Context from the editor over the webview channel: a drop and the Problems button are answered with
// `addMentions` under their request id; chips and focus a command sends before the webview is ready reach
// it after its snapshot; the new messages are validated both ways like every other.

import * as assert from 'node:assert/strict';
import type { Logger } from '../../../src/extension/core/ports/logger';
import { SessionViewChannel } from '../../../src/extension/presentation/sessionViewChannel';
import type { IntentHandlers } from '../../../src/extension/presentation/viewHandlers';
import { composerHandlers, type ComposerPorts } from '../../../src/extension/presentation/handlers/composer';
import type { HostMessage } from '../../../src/shared/webviewProtocol';
import { parseHostMessage, parseWebviewMessage } from '../../../src/shared/webviewProtocol';
import { droppedUris } from '../../../src/webview/composer';
import { ModelStub, recordingHandlers, snapshotWith, stubSurface } from './viewBuilders';

const quiet: Logger = { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function setup(overrides: Partial<IntentHandlers> = {}, without: (keyof IntentHandlers)[] = []) {
  const posted: HostMessage[] = [];
  const calls: [string, unknown][] = [];
  const model = new ModelStub();
  const channel = new SessionViewChannel((m) => void posted.push(m), stubSurface(() => model.snapshot), recordingHandlers(calls, overrides, without), quiet);
  model.channel = channel;
  return { channel, model, posted, calls };
}

describe('session view channel: context from the editor', () => {
  it('answers a drop with the controller\'s checked mentions and its note, under the drop\'s request id', async () => {
    const seen: unknown[] = [];
    const dropped = async (sessionId: string | undefined, uris: string[]) => {
      seen.push({ sessionId, uris });
      return { items: [{ kind: 'file' as const, path: 'src/a.ts' }], note: '"/etc/passwd" is outside the session\'s folder.' };
    };
    const { dropUris } = composerHandlers(() => ({ mentions: { dropped } }) as unknown as ComposerPorts);
    const { channel, posted } = setup({ dropUris });
    await channel.receive({ type: 'ready', id: 'w1' });
    await channel.receive({ type: 'dropUris', id: 'w2', sessionId: 's1', uris: ['file:///ws/src/a.ts', 'file:///etc/passwd'] });
    assert.deepEqual(seen, [{ sessionId: 's1', uris: ['file:///ws/src/a.ts', 'file:///etc/passwd'] }]);
    assert.deepEqual(posted.at(-1), { type: 'addMentions', requestId: 'w2', items: [{ kind: 'file', path: 'src/a.ts' }], note: '"/etc/passwd" is outside the session\'s folder.' });
    assert.ok(parseHostMessage(posted.at(-1)).ok, 'the answer passes the webview\'s own check');
  });

  it('answers the Problems button with the active file\'s Problems', async () => {
    const problems = { kind: 'problems' as const, count: 1, text: 'a.json:3:14 error: Value expected', path: 'a.json' };
    const { activeProblems } = composerHandlers(() => ({ mentions: { activeProblems: async () => ({ items: [problems] }) } }) as unknown as ComposerPorts);
    const { channel, posted } = setup({ activeProblems });
    await channel.receive({ type: 'ready', id: 'w1' });
    await channel.receive({ type: 'activeProblems', id: 'w2', sessionId: 's1' });
    assert.deepEqual(posted.at(-1), { type: 'addMentions', requestId: 'w2', items: [problems] });
  });

  it('a view that cannot take drops says so to the webview instead of dropping the request', async () => {
    const { channel, posted } = setup({}, ['dropUris']);
    await channel.receive({ type: 'ready', id: 'w1' });
    await channel.receive({ type: 'dropUris', id: 'w2', uris: ['file:///ws/a'] });
    assert.deepEqual(posted.at(-1), { type: 'error', requestId: 'w2', message: 'This view cannot handle "dropUris" messages.' });
  });

  it('chips and focus sent before the webview is ready reach it after its snapshot, once', async () => {
    const { channel, model, posted } = setup();
    model.postSnapshot(snapshotWith([]));
    channel.addMentions([{ kind: 'file', path: 'README.md' }], 'one refused');
    channel.focusInput();
    assert.equal(posted.length, 0, 'nothing before ready');
    await channel.receive({ type: 'ready', id: 'w1' });
    assert.deepEqual(posted.map((m) => m.type), ['snapshot', 'addMentions', 'focusInput']);
    assert.deepEqual(posted[1], { type: 'addMentions', items: [{ kind: 'file', path: 'README.md' }], note: 'one refused' });
    channel.reset();
    await channel.receive({ type: 'ready', id: 'w2' });
    assert.deepEqual(posted.slice(3).map((m) => m.type), ['snapshot'], 'a reload does not add them again');
    channel.focusInput();
    assert.deepEqual(posted.at(-1), { type: 'focusInput' }, 'a ready webview gets the focus at once');
  });

  it('refuses a drop of no files, of too many, or of a URI longer than any path', () => {
    assert.equal(parseWebviewMessage({ type: 'dropUris', id: 'w1', uris: [] }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'dropUris', id: 'w1', uris: Array.from({ length: 11 }, (_, i) => `file:///f${i}`) }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'dropUris', id: 'w1', uris: [`file:///${'a'.repeat(9_000)}`] }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'dropUris', id: 'w1', uris: ['file:///ws/a.ts'], extra: 1 }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'dropUris', id: 'w1', uris: ['file:///ws/a.ts'] }).ok, true);
    assert.equal(parseHostMessage({ type: 'addMentions', items: Array.from({ length: 11 }, () => ({ kind: 'file', path: 'a' })) }).ok, false);
    assert.equal(parseHostMessage({ type: 'focusInput', extra: true }).ok, false);
  });

  it('reads the URIs a drag from the Explorer carries, in VS Code\'s and the standard forms; none from the desktop', () => {
    const drag = (data: Record<string, string>) => ({ getData: (type: string) => data[type] ?? '' }) as unknown as DataTransfer;
    assert.deepEqual(droppedUris(drag({ 'text/uri-list': '# comment\r\nfile:///ws/a.ts\r\n\r\nvscode-remote://h/ws/b.ts\r\n' })), ['file:///ws/a.ts', 'vscode-remote://h/ws/b.ts']);
    assert.deepEqual(droppedUris(drag({ 'application/vnd.code.uri-list': 'file:///ws/c.ts' })), ['file:///ws/c.ts']);
    assert.deepEqual(droppedUris(drag({ resourceurls: '["file:///ws/d.ts", 7, ""]' })), ['file:///ws/d.ts']);
    assert.deepEqual(droppedUris(drag({ resourceurls: 'not json' })), []);
    assert.deepEqual(droppedUris(drag({})), []);
    assert.deepEqual(droppedUris(undefined), []);
  });
});
