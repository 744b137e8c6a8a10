// A window without a folder: its sessions work in an empty private folder of their own, never in Vigil's storage
// (which once was their working folder, handing every agent every session's transcript).

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtinLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { WorkspaceFs } from '../../../src/extension/core/acp/workspaceFs';
import { ApprovalBroker } from '../../../src/extension/presentation/approvalBroker';
import { VigilServices } from '../../../src/extension/services';

describe('a window without a folder', function () {
  this.timeout(30_000);
  let root: string;
  let storage: string;
  let services: VigilServices | undefined;

  before(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-folderless-'));
    storage = path.join(root, 'globalStorage', 'vigil.vigil');
    services = await VigilServices.start({
      storageRoot: storage,
      windowId: 'window-folderless',
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} },
      windowFolders: () => [],
      liveness: () => ({ enabled: true, timeoutMs: 60_000, toolTimeoutMs: 120_000, graceMs: 5_000 }),
      maxWakeupsPerTurn: () => 5,
      outputByteLimit: () => 64 * 1024,
      launchFor: async () => builtinLaunch({ agentScript: '/nonexistent', execPath: process.execPath, model: { provider: 'demo' } }),
      policy: { isTrusted: () => true, mode: () => 'allowReadOnly' },
      prompter: new ApprovalBroker(),
    });
  });

  after(async () => {
    services?.dispose();
    await fs.rm(root, { recursive: true, force: true });
  });

  it("runs a session's commands in an empty private folder of its own, outside the storage, not shared with other sessions", async () => {
    const cwdOf = async (sessionId: string) => {
      const { terminalId } = await services!.registry.create({ sessionId, command: 'pwd -P' });
      await services!.registry.waitForExit(terminalId);
      return (await services!.registry.output(terminalId)).output.trim();
    };
    const a = await services!.supervisor.sessions.create('no folder a');
    const b = await services!.supervisor.sessions.create('no folder b');
    const cwdA = await cwdOf(a.id);
    const cwdB = await cwdOf(b.id);
    assert.notEqual(cwdA, cwdB);
    const realStorage = await fs.realpath(storage);
    for (const cwd of [cwdA, cwdB]) {
      assert.ok(path.relative(realStorage, cwd).startsWith('..'), `${cwd} is not inside the storage ${realStorage}`);
      assert.equal((await fs.stat(cwd)).mode & 0o777, 0o700);
    }
    // And from there, the storage (another session's transcript) is outside and private.
    const where = await new WorkspaceFs(cwdA).locate(path.join(storage, 'sessions', b.id, 'session.json'));
    assert.equal(where.inside, false);
    assert.equal(where.private, true);
  });
});
