// The pure folder rules: where a session runs from a window, which folder a new session gets, and
// which recorded values are refused as damage.

import * as assert from 'node:assert/strict';
import { MAX_FOLDER_PATH, folderRecordProblem } from '../../../src/extension/core/store/folderRecord';
import {
  folderForNewSession,
  isInside,
  mayRun,
  placeSession,
  placementProblem,
  sameFolder,
} from '../../../src/extension/core/folders/sessionFolder';

describe('session folder rules', () => {
  const a = '/work/projects/alpha';
  const b = '/work/projects/beta';

  it('a session recorded in one of the window folders is home there, in the window spelling', () => {
    assert.deepEqual(placeSession(a, [b, a]), { kind: 'home', folder: a });
    assert.deepEqual(placeSession(a, [`${a}/`]), { kind: 'home', folder: a });
    assert.ok(mayRun(placeSession(a, [a])));
  });

  it('a session of a folder the window does not have is foreign, and may not run there', () => {
    const placement = placeSession(a, [b]);
    assert.deepEqual(placement, { kind: 'foreign', folder: a });
    assert.equal(mayRun(placement), false);
    assert.match(placementProblem(placement) ?? '', /belongs to the folder "alpha" \(\/work\/projects\/alpha\).*Open that folder/);
    // A parent or a child of the window's folder is another folder.
    assert.equal(placeSession('/work/projects', [a]).kind, 'foreign');
    assert.equal(placeSession(`${a}/src`, [a]).kind, 'foreign');
    assert.equal(placeSession('/work/projects/alphabet', [a]).kind, 'foreign');
  });

  it('a session without a record adopts the window first folder; in a window without folders it stays folder-less', () => {
    assert.deepEqual(placeSession(undefined, [b, a]), { kind: 'adopt', folder: b });
    assert.deepEqual(placeSession(undefined, []), { kind: 'folderless' });
    assert.ok(mayRun(placeSession(undefined, [])));
  });

  it('a recorded folder from hostile or damaged metadata is refused, whatever the window has open', () => {
    const hostile = ['', 'relative/path', '../../etc', '/work/projects/alpha/../../../etc', '/work//projects', '/work/./x', '/work/projects/alpha/', '/tmp/a\0b', `/${'x'.repeat(MAX_FOLDER_PATH)}`];
    for (const value of hostile) {
      const placement = placeSession(value, [a, '/', '/etc', '/tmp']);
      assert.equal(placement.kind, 'damaged', JSON.stringify(value.slice(0, 40)));
      assert.equal(mayRun(placement), false);
      assert.match(placementProblem(placement) ?? '', /stored folder is damaged .* Fix or remove the "folder" field of its session\.json/);
    }
    assert.equal(folderRecordProblem(a), undefined);
    assert.equal(folderRecordProblem('/'), undefined, 'the root is a well-formed path (it runs only where a window has it open)');
    assert.equal(folderRecordProblem('/work/odd\nname'), undefined, 'a folder name may hold any character but NUL');
  });

  it('Windows paths compare without case and refuse relative and drive-relative spellings', () => {
    assert.ok(sameFolder('C:\\Work\\Alpha', 'c:\\work\\alpha\\', 'win32'));
    assert.deepEqual(placeSession('C:\\Work\\Alpha', ['c:\\work\\alpha'], 'win32'), { kind: 'home', folder: 'c:\\work\\alpha' });
    assert.equal(placeSession('C:Work', ['C:\\Work'], 'win32').kind, 'damaged');
    assert.equal(placeSession('Work\\Alpha', ['C:\\Work\\Alpha'], 'win32').kind, 'damaged');
    assert.equal(sameFolder('/Work/Alpha', '/work/alpha', 'linux'), false, 'case matters on Linux');
  });

  it('a new session goes to the folder holding the active editor (the deepest), else the first folder', () => {
    const nested = `${a}/packages/web`;
    assert.equal(folderForNewSession([a, b], `${b}/src/main.ts`), b);
    assert.equal(folderForNewSession([a, nested], `${nested}/index.ts`), nested);
    assert.equal(folderForNewSession([a, nested], `${a}/README.md`), a);
    assert.equal(folderForNewSession([a, b], '/elsewhere/file.ts'), a, 'an editor outside every folder does not count');
    assert.equal(folderForNewSession([a, b], undefined), a);
    assert.equal(folderForNewSession([], `${a}/x.ts`), undefined, 'a window without folders records none');
  });

  it('inside means the folder itself or below it, not a sibling sharing a prefix', () => {
    assert.ok(isInside(a, a));
    assert.ok(isInside(a, `${a}/x/y`));
    assert.equal(isInside(a, `${a}bet/x`), false);
    assert.equal(isInside(a, '/work/projects'), false);
  });
});
