// The workspace boundary against a hostile repository: every input of the fixture's table gets what it must
// (served, outside with its resolved target named, or refused with a clear error), and nothing outside changes.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isInside, locatePath } from '../../../src/extension/core/acp/workspaceBoundary';
import { WorkspaceFs } from '../../../src/extension/core/acp/workspaceFs';
import { HostileRepo, type HostileInput } from '../../fakes/hostileRepo';

async function attempt(ws: WorkspaceFs, input: HostileInput): Promise<unknown> {
  const where = await ws.locate(input.path);
  if (input.op === 'read') return ws.read(where);
  if (input.op === 'write') return ws.write(where, 'written by a hostile agent');
  return ws.list(where);
}

describe('workspace boundary', () => {
  let repo: HostileRepo;
  let ws: WorkspaceFs;
  let snapshot: string;

  before(async () => {
    repo = await HostileRepo.create();
    ws = new WorkspaceFs(repo.ws);
    snapshot = await repo.outsideSnapshot();
  });
  after(async () => {
    // Whatever ran, the fixture's outside folder is untouched.
    assert.equal(await repo.outsideSnapshot(), snapshot);
    await repo.dispose();
  });

  it('treats only a whole `..` component as leaving (a file named `..env` is inside)', () => {
    assert.equal(isInside('/ws', '/ws/..env'), true);
    assert.equal(isInside('/ws', '/ws/..'), false);
    assert.equal(isInside('/ws', '/ws/../x'), false);
    assert.equal(isInside('/ws', '/ws'), true);
    assert.equal(isInside('/ws', '/wsx/a'), false);
  });

  it('judges a symlink by its resolved target and names it', async () => {
    const broken = await locatePath(repo.ws, repo.p('notes'));
    assert.deepEqual([broken.inside, broken.dangling, broken.real, broken.kind], [false, true, repo.o('new.txt'), 'missing']);
    const chain = await locatePath(repo.ws, repo.p('chain1'));
    assert.deepEqual([chain.inside, chain.real, chain.hops.length], [false, repo.o('secret.txt'), 3]);
    const inChain = await locatePath(repo.ws, repo.p('inchain1'));
    assert.deepEqual([inChain.inside, inChain.real, inChain.kind], [true, repo.p('src/a.ts'), 'file']);
    const newUnderLink = await locatePath(repo.ws, repo.p('srclink/new/b.ts'));
    assert.deepEqual([newUnderLink.inside, newUnderLink.dangling, newUnderLink.real], [true, false, repo.p('src/new/b.ts')]);
  });

  it('takes a backslash on Linux and macOS as part of a name, never as a separator that could climb with `..`', async function () {
    if (process.platform === 'win32') this.skip();
    // A legal POSIX file name: Vigil must judge (and later open) exactly this name, not ../../outside/secret.txt.
    const sneaky = '..\\..\\outside\\secret.txt';
    const where = await locatePath(repo.ws, sneaky);
    assert.deepEqual([where.inside, where.real, where.kind], [true, repo.p(sneaky), 'missing']);
    await fs.writeFile(repo.p(sneaky), 'a name with backslashes\n');
    try {
      assert.equal(await ws.read(await ws.locate(sneaky)), 'a name with backslashes\n');
      const folder = await locatePath(repo.ws, 'src\\a.ts');
      assert.deepEqual([folder.real, folder.kind], [repo.p('src\\a.ts'), 'missing']);
    } finally {
      await fs.unlink(repo.p(sneaky));
    }
  });

  it('starts from the root even when the root itself is reached through a symlink', async () => {
    const alias = path.join(repo.base, 'ws-alias');
    await fs.symlink(repo.ws, alias);
    try {
      const where = await locatePath(alias, path.join(alias, 'README.md'));
      assert.deepEqual([where.inside, where.real], [true, repo.p('README.md')]);
      const escape = await locatePath(alias, path.join(alias, 'chain1'));
      assert.equal(escape.inside, false);
    } finally {
      await fs.unlink(alias);
    }
  });

  it('tries every hostile input of the fixture and each gets what it must', async function () {
    const inputs = repo.inputs();
    const outcomes: string[] = [];
    for (const input of inputs) {
      const label = `${input.name} (${input.op})`;
      if (input.expect === 'inside') {
        const where = await ws.locate(input.path);
        assert.equal(where.inside, true, label);
        await attempt(ws, input);
        outcomes.push(`${label}: served`);
      } else if ('outside' in input.expect) {
        const where = await ws.locate(input.path);
        assert.equal(where.inside, false, label);
        assert.equal(where.real, input.expect.outside, label);
        await assert.rejects(attempt(ws, input), (e: Error) => {
          assert.match(e.message, /outside the workspace folder and was not approved/, label);
          assert.ok(e.message.includes(input.expect !== 'inside' && 'outside' in input.expect ? input.expect.outside : ''), `${label}: ${e.message}`);
          return true;
        });
        outcomes.push(`${label}: outside, target named`);
      } else {
        const re = input.expect.refused;
        await assert.rejects(attempt(ws, input), (e: Error) => {
          assert.match(e.message, re, label);
          return true;
        });
        outcomes.push(`${label}: refused`);
      }
    }
    assert.equal(outcomes.length, inputs.length);
    if (process.env.VIGIL_HOSTILE_REPORT) console.log(`${outcomes.length} hostile inputs:\n${outcomes.join('\n')}`);
    // The `..env` write landed inside, as a file.
    assert.equal(await fs.readFile(repo.p('..env'), 'utf8'), 'written by a hostile agent');
  });
});
