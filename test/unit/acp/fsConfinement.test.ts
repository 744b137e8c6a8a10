// fs/* through the ACP client: inside the workspace served, outside only with the person's approval,
// and no writes at all in an untrusted workspace.

import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { AcpHarness } from './acpHarness';

describe('ACP client file access', function () {
  this.timeout(30_000);
  let h: AcpHarness | undefined;
  afterEach(async () => h?.dispose());

  it('serves a file inside the workspace without asking', async () => {
    h = await AcpHarness.create();
    await h.turn(`read ${path.join(h.workspace, 'README.md')}`);
    assert.match(h.agentText(), /ok: \{"content":"# Demo project/);
    assert.equal(h.questions.length, 0);
  });

  it('asks before reading outside the workspace, and refuses when the person says no', async () => {
    h = await AcpHarness.create();
    const outside = path.join(path.dirname(h.workspace), 'secret.txt');
    await fs.writeFile(outside, 'top secret');
    h.answer = 'reject';
    await h.turn(`read ${outside}`);
    assert.match(h.agentText(), /refused: Access to .*secret\.txt is outside the workspace folder and was not approved/);
    assert.equal(h.questions[0].title, `read outside the workspace: ${outside}`);
    h.answer = 'allowOnce';
    await h.turn(`read ${outside}`);
    assert.match(h.agentText(), /ok: \{"content":"top secret"\}/);
  });

  it('asks before writing through a broken symlink, naming its resolved target, and creates nothing on "no"', async () => {
    h = await AcpHarness.create();
    const target = path.join(path.dirname(h.workspace), 'created-outside.txt');
    const link = path.join(h.workspace, 'notes');
    await fs.symlink(target, link);
    h.answer = 'reject';
    await h.turn(`write ${link}`);
    assert.equal(h.questions[0].title, `write outside the workspace: ${link} → ${target} (a symlink to a missing file)`);
    assert.match(h.agentText(), /refused: Access to .*notes → .*created-outside\.txt \(a symlink to a missing file\) is outside the workspace folder and was not approved/);
    await assert.rejects(fs.stat(target), /ENOENT/);
    h.answer = 'allowOnce';
    await h.turn(`write ${link}`);
    assert.equal(await fs.readFile(target, 'utf8'), 'written by the fake agent');
    assert.equal((await fs.lstat(link)).isSymbolicLink(), true);
  });

  it('refuses to read a FIFO in the workspace with a clear error, without asking', async () => {
    h = await AcpHarness.create();
    const fifo = path.join(h.workspace, 'pipe');
    await promisify(execFile)('mkfifo', [fifo]);
    await h.turn(`read ${fifo}`);
    assert.match(h.agentText(), /pipe: it is a fifo, not a regular file/);
    assert.equal(h.questions.length, 0);
  });

  it('refuses every write in an untrusted workspace', async () => {
    h = await AcpHarness.create();
    h.trusted = false;
    const target = path.join(h.workspace, 'new.txt');
    await h.turn(`write ${target}`);
    assert.match(h.agentText(), /refused: This workspace is not trusted/);
    await assert.rejects(fs.stat(target));
  });
});
