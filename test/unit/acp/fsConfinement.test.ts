// fs/* through the ACP client: inside the workspace served, outside only with the person's approval,
// and no writes at all in an untrusted workspace.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
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

  it('refuses every write in an untrusted workspace', async () => {
    h = await AcpHarness.create();
    h.trusted = false;
    const target = path.join(h.workspace, 'new.txt');
    await h.turn(`write ${target}`);
    assert.match(h.agentText(), /refused: This workspace is not trusted/);
    await assert.rejects(fs.stat(target));
  });
});
