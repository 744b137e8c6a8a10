// Files handed to Vigil from outside the composer (Add File to Vigil, a drop) are hostile until checked: only
// a regular file inside the session's folder, reached without a link out of it, becomes a mention, by the same
// rule as the composer's `@`; everything else is refused with why, and nothing is read.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, closeSync, ftruncateSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileMentions } from '../../../src/extension/presentation/fileMentions';
import { resolveMentions } from '../../../src/extension/core/acp/mentionResolver';

describe('file mentions from a drop or a command', () => {
  let dir: string;
  let root: string;
  let outside: string;

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'vigil-file-mentions-'));
    root = path.join(dir, 'ws');
    outside = path.join(dir, 'outside');
    mkdirSync(path.join(root, 'src'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(path.join(outside, 'secret.txt'), 'not yours\n');
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a file inside the folder becomes the mention `@` makes, which a send then accepts', async () => {
    const found = await fileMentions(root, [path.join(root, 'src', 'a.ts')]);
    assert.deepEqual(found, { items: [{ kind: 'file', path: 'src/a.ts' }] });
    const [attachment] = await resolveMentions(root, found.items);
    assert.equal(attachment.kind === 'file' && attachment.name, 'a.ts');
  });

  it('refuses a file outside the folder, a link out of it and a folder, saying why; keeps the good ones', async () => {
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'escape.txt'));
    symlinkSync(outside, path.join(root, 'linked-dir'));
    const found = await fileMentions(root, [
      path.join(outside, 'secret.txt'),
      path.join(root, 'escape.txt'),
      path.join(root, 'linked-dir', 'secret.txt'),
      path.join(root, 'src'),
      path.join(root, 'src', 'a.ts'),
      path.join(root, 'gone.ts'),
      'relative/path.ts',
    ]);
    assert.deepEqual(found.items, [{ kind: 'file', path: 'src/a.ts' }]);
    const note = found.note ?? '';
    assert.match(note, /secret\.txt" is outside the session's folder; only files inside it can be mentioned\./);
    assert.match(note, /escape\.txt" is outside the session's folder/);
    assert.match(note, /linked-dir\/secret\.txt" is outside the session's folder/);
    assert.match(note, /src" is a folder; mention the files in it instead\./);
    assert.match(note, /gone\.ts" does not exist\./);
    assert.match(note, /"relative\/path\.ts" is not a file on this machine\./);
  });

  it('a link inside the folder to a file inside it is mentioned by the name the person used', async () => {
    symlinkSync(path.join(root, 'src', 'a.ts'), path.join(root, 'alias.ts'));
    assert.deepEqual((await fileMentions(root, [path.join(root, 'alias.ts')])).items, [{ kind: 'file', path: 'alias.ts' }]);
  });

  it('refuses a FIFO (it would block a reader) and takes a huge file by name only, without reading it', async function () {
    const fifo = path.join(root, 'pipe');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      this.skip();
    }
    const huge = path.join(root, 'huge.bin');
    const fd = openSync(huge, 'w');
    ftruncateSync(fd, 64 * 1024 ** 3);
    closeSync(fd);
    const found = await fileMentions(root, [fifo, huge]);
    assert.deepEqual(found.items, [{ kind: 'file', path: 'huge.bin' }], 'a link to it goes to the agent; its bytes are never read here');
    assert.match(found.note ?? '', /pipe" is a fifo, not a regular file\./);
  });

  it('takes at most one message\'s attachments, says how many were left out, and cuts a hostile name in its note', async () => {
    const many = Array.from({ length: 12 }, (_, i) => path.join(root, 'src', `f${i}.ts`));
    for (const f of many) writeFileSync(f, '');
    const found = await fileMentions(root, many);
    assert.equal(found.items.length, 10);
    assert.match(found.note ?? '', /the other 2 were left out/);
    const long = await fileMentions(root, [path.join(outside, 'x'.repeat(200))]);
    assert.ok((long.note ?? '').length < 250, long.note);
  });

  it('without a folder nothing can be mentioned, and the note says what to do', async () => {
    assert.deepEqual(await fileMentions(undefined, [path.join(root, 'src', 'a.ts')]), { items: [], note: 'Open a folder to mention its files.' });
  });
});
