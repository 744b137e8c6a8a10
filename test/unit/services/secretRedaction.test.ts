// A stored API key never reaches disk, the log or the view: through the composed services, the real
// built-in agent process and a real OpenAI-compatible server that echoes the key in an error and in a
// stream (split across two SSE chunks).

import * as assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtinLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { REDACTED, Redactor } from '../../../src/extension/core/common/redactor';
import type { Logger } from '../../../src/extension/core/ports/logger';
import type { TurnEnded } from '../../../src/extension/core/ports/turns';
import { ApprovalBroker } from '../../../src/extension/presentation/approvalBroker';
import { SessionPresenter } from '../../../src/extension/presentation/sessionPresenter';
import { VigilServices } from '../../../src/extension/services';
import { SessionViewChannel } from '../../../src/extension/presentation/sessionViewChannel';
import type { IntentHandlers } from '../../../src/extension/presentation/viewHandlers';
import { sideBarSurface } from '../../../src/extension/presentation/viewSurface';
import { emptySnapshot } from '../../../src/shared/sessionView';
import { ScriptedOpenAiServer } from '../../fixtures/models/scriptedOpenAiServer';
import { ensureAgentBundle } from '../agent/agentBundle';

// The agent as it ships, bundled into out/ (dist/ may be rewritten by packaging while this suite runs).
let agentScript: string;

const KEY = 'sk-vigil-test-4f9c1e7a2b8d6053';
const LATER_KEY = 'sk-later-key-77d1e0c9a4b3f2aa';

/** Regular files under dir. Sockets hold no bytes, and a lock or temporary file may vanish while we walk. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    const stat = lstatSync(full, { throwIfNoEntry: false });
    if (stat?.isDirectory()) return filesUnder(full);
    return stat?.isFile() ? [full] : [];
  });
}

function contentOf(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/** Where a secret (or the longer half of one, the sign of a split that was not caught) shows up. */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const secret of [KEY, LATER_KEY]) {
    for (const piece of [secret, secret.slice(10), secret.slice(0, secret.length - 10)]) if (text.includes(piece)) found.push(piece);
  }
  return found;
}

describe('secrets never persisted or shown (plain Node, real agent process)', function () {
  this.timeout(60_000);
  let root: string;
  let server: ScriptedOpenAiServer;
  let services: VigilServices | undefined;

  before(async function () {
    agentScript = await ensureAgentBundle();
    root = mkdtempSync(path.join(os.tmpdir(), 'vigil-secrets-'));
    server = await ScriptedOpenAiServer.start();
  });

  after(async () => {
    services?.dispose();
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('an echoed key is cut out of the transcript, session metadata, the log and everything posted to the view', async () => {
    const storage = path.join(root, 'storage');
    const logLines: string[] = [];
    const log = (level: string) => (m: string | Error, ...a: unknown[]) => logLines.push(`${level} ${String(m)} ${JSON.stringify(a)}`);
    const logger: Logger = { trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
    // What the window's SecretStorage source does with a stored key: the redactor knows it from the start.
    const redactor = new Redactor();
    redactor.add([KEY]);
    services = await VigilServices.start({
      storageRoot: storage,
      windowId: 'window-1',
      logger,
      redactor,
      windowFolders: () => [root],
      folderlessCwd: () => root,
      liveness: () => ({ enabled: true, timeoutMs: 60_000, toolTimeoutMs: 120_000, graceMs: 5_000 }),
      maxWakeupsPerTurn: () => 5,
      outputByteLimit: () => 64 * 1024,
      launchFor: async () =>
        builtinLaunch({ agentScript, execPath: process.execPath, model: { provider: 'openai-compatible', baseUrl: server.url, name: 'scripted' }, apiKey: KEY }),
      policy: { isTrusted: () => true, mode: () => 'allowAll' },
      prompter: new ApprovalBroker(),
    });
    const { supervisor } = services;

    // The view, wired as the extension wires it: presenter → channel → post.
    const posted: unknown[] = [];
    let shown: SessionPresenter | undefined;
    const channel = new SessionViewChannel(
      (m) => posted.push(m),
      sideBarSurface({ getSnapshot: () => shown?.snapshot ?? emptySnapshot(), currentSessionId: undefined }),
      {} as IntentHandlers,
      logger,
      {},
      (m) => redactor.redactValue(m),
    );
    await channel.receive({ type: 'ready', id: 'w1' });
    const meta = await supervisor.sessions.create(`key ${KEY}`);
    const presenter = new SessionPresenter({ meta, records: [], live: undefined, tasks: [], approvals: [] }, (e) => channel.postEvent(e));
    shown = presenter;
    channel.postSnapshot(presenter.snapshot);
    supervisor.sessions.onAppended(({ sessionId, records }) => sessionId === meta.id && presenter.records(records));
    supervisor.subscribe((e) => presenter.supervisorEvent(e));

    const turn = async (text: string): Promise<TurnEnded> => {
      const started = await supervisor.startTurn(meta.id, text, { source: 'user' });
      assert.equal(started.kind, 'started');
      return (started as { ended: Promise<TurnEnded> }).ended;
    };

    // 1. The answer streams the key, cut in two SSE chunks.
    server.reply({ kind: 'text', chunks: [`Your key is ${KEY.slice(0, 12)}`, `${KEY.slice(12)} — keep it safe.`] });
    assert.equal((await turn('What is my key?')).reason, 'completed');
    // 2. The provider rejects the key and echoes it in the error body.
    server.reply({ kind: 'status', status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error' } } });
    const failed = await turn('Try again');
    assert.equal(failed.reason, 'failed');
    assert.ok(failed.message?.includes(KEY), 'the provider did echo the key (in memory only)');
    // 3. A key set later (Set API Key) applies to the very next write.
    redactor.add([LATER_KEY]);
    server.reply({ kind: 'status', status: 401, body: { error: { message: `Incorrect API key provided: ${LATER_KEY}` } } });
    assert.equal((await turn('Once more')).reason, 'failed');
    assert.equal(server.requests[0].authorization, `Bearer ${KEY}`, 'the agent itself still got the real key');

    const { records } = await supervisor.sessions.readAll(meta.id);
    const answer = records
      .filter((r) => r.type === 'agentUpdate' && r.update.sessionUpdate === 'agent_message_chunk')
      .map((r) => ((r as { update: { content?: { text?: string } } }).update.content?.text ?? ''))
      .join('');
    assert.ok(answer.includes(`Your key is ${REDACTED} — keep it safe.`), answer);
    const ends = records.filter((r) => r.type === 'turnEnded' && r.reason === 'failed').map((r) => (r as { message?: string }).message ?? '');
    assert.equal(ends.length, 2);
    for (const message of ends) assert.match(message, /rejected the API key \(HTTP 401\): 401 Incorrect API key provided: «redacted»/);

    // A reopened view is built from the stored transcript.
    const reopened = new SessionPresenter({ meta: (await supervisor.sessions.get(meta.id))!, records, live: undefined, tasks: [], approvals: [] }, () => undefined);
    shown = reopened;
    channel.postSnapshot(reopened.snapshot);

    await supervisor.sessions.update(meta.id, { stateReason: `paused: ${KEY}` });
    services.dispose();
    services = undefined;

    const onDisk = filesUnder(storage).flatMap((file) => leaks(contentOf(file)).map((piece) => `${path.relative(storage, file)}: ${piece}`));
    assert.deepEqual(onDisk, []);
    assert.deepEqual(leaks(JSON.stringify(posted)), [], 'posted to the view');
    assert.ok(JSON.stringify(posted).includes(REDACTED));
    assert.deepEqual(leaks(logLines.join('\n')), [], 'written to the log');
  });
});
