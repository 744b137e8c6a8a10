// Writes of an agent through fs/write_text_file with their diffs kept: recorded for the tool card and the turn's
// change list, and under `vigil.edits.review: ask` held as one approval that shows the diff, where a rejection leaves
// the file untouched and tells the agent so; hostile places (outside, symlinks, huge files) included.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { EditJournal } from '../../../src/extension/core/acp/editJournal';
import { fileEditedUpdate, type FileEditView } from '../../../src/shared/fileEdits';
import { builtinLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { ScriptedOpenAiServer } from '../../fixtures/models/scriptedOpenAiServer';
import { ensureAgentBundle } from '../agent/agentBundle';
import { AcpHarness } from './acpHarness';

describe('agent writes with their diffs', function () {
  this.timeout(40_000);
  let h: AcpHarness | undefined;
  let journal: EditJournal;
  afterEach(async () => h?.dispose());

  const start = async () => {
    journal = new EditJournal();
    h = await AcpHarness.create({ edits: journal });
    return h;
  };
  const write = async (harness: AcpHarness, steps: Array<{ path: string; content?: string }>) => {
    const before = harness.agentText().length;
    const ended = await harness.turn(`script ${JSON.stringify(steps.map((w) => ({ write: w })))}`);
    assert.equal(ended.reason, 'completed', ended.message);
    return harness.agentText().slice(before);
  };
  const edits = (harness: AcpHarness) =>
    harness.agentEvents.filter((e) => e.update?.sessionUpdate === fileEditedUpdate).map((e) => e.update as { edit: FileEditView; file: FileEditView; toolCallId?: string });

  it('auto: writes at once and records the write with its counts and both sides kept', async () => {
    h = await start();
    h.mode = 'allowAll';
    const target = path.join(h.workspace, 'README.md');
    assert.match(await write(h, [{ path: target, content: '# Demo project\nHello, edited.\nMore.\n' }]), /step 1 write: ok/);
    assert.equal(h.questions.length, 0);
    const [record] = edits(h);
    assert.deepEqual({ path: record.edit.path, added: record.edit.added, removed: record.edit.removed, created: record.edit.created }, { path: 'README.md', added: 2, removed: 1, created: false });
    const kept = journal.get(record.edit.editId)!;
    assert.deepEqual(kept.before, { kind: 'text', text: '# Demo project\nHello from the workspace.\n' });
    assert.deepEqual(kept.after, { kind: 'text', text: '# Demo project\nHello, edited.\nMore.\n' });
  });

  it('ask: one question shows the diff; a rejection leaves the file untouched and tells the agent', async () => {
    h = await start();
    h.review = 'ask';
    h.mode = 'allowAll';
    h.answer = 'reject';
    const target = path.join(h.workspace, 'README.md');
    const out = await write(h, [{ path: target, content: 'replaced' }]);
    assert.match(out, /step 1 write: refused: Did not write README\.md: the person rejected the edit\. The file is unchanged\./);
    assert.equal(await fs.readFile(target, 'utf8'), '# Demo project\nHello from the workspace.\n');
    assert.equal(h.questions.length, 1, 'the review replaces the policy question; allowAll still reviews');
    const q = h.questions[0];
    assert.equal(q.kind, 'edit');
    assert.equal(q.details?.type, 'edit');
    if (q.details?.type !== 'edit') return;
    assert.equal(q.details.edit.path, 'README.md');
    assert.deepEqual(q.details.preview, { oldText: '# Demo project\nHello from the workspace.\n', newText: 'replaced' });
    assert.equal(journal.get(q.details.edit.editId), undefined, 'nothing of a rejected edit is kept');
    assert.equal(edits(h).length, 0);
  });

  it('ask: accepting writes the file, and "ask" policy asks once, not twice', async () => {
    h = await start();
    h.review = 'ask';
    h.mode = 'ask';
    h.answer = 'allowOnce';
    const target = path.join(h.workspace, 'src', 'new.ts');
    assert.match(await write(h, [{ path: target, content: 'export const x = 1;\n' }]), /step 1 write: ok/);
    assert.equal(await fs.readFile(target, 'utf8'), 'export const x = 1;\n');
    assert.equal(h.questions.length, 1);
    assert.match(h.questions[0].title, /^edit src\/new\.ts \(new file, \+2 −0\)$/);
    assert.equal(edits(h)[0].edit.created, true);
  });

  it('ask: Restricted Mode refuses the write unasked', async () => {
    h = await start();
    h.review = 'ask';
    h.byKind = { edit: 'ask' };
    h.trusted = false;
    const target = path.join(h.workspace, 'x.txt');
    assert.match(await write(h, [{ path: target }]), /step 1 write: refused: This workspace is not trusted/);
    assert.equal(h.questions.length, 0);
  });

  it('ask: a file changed while its edit waited is not overwritten', async () => {
    h = await start();
    h.review = 'ask';
    h.answer = 'allowOnce';
    const target = path.join(h.workspace, 'README.md');
    h.beforeAnswer = async () => fs.writeFile(target, 'the person typed this meanwhile\n');
    assert.match(await write(h, [{ path: target, content: 'agent version' }]), /step 1 write: refused: README\.md changed while its edit waited for review/);
    assert.equal(await fs.readFile(target, 'utf8'), 'the person typed this meanwhile\n');
  });

  it('ask outside the workspace: the path is asked about, then the diff; rejecting the diff writes nothing', async () => {
    h = await start();
    h.review = 'ask';
    h.answers = ['allowOnce', 'reject'];
    const target = path.join(path.dirname(h.workspace), 'outside.txt');
    await fs.writeFile(target, 'outside\n');
    assert.match(await write(h, [{ path: target, content: 'changed' }]), /refused: Did not write .*outside\.txt: the person rejected the edit/);
    assert.equal(h.questions.length, 2);
    assert.match(h.questions[0].title, /outside/);
    assert.equal(h.questions[1].details?.type === 'edit' && h.questions[1].details.edit.path, target, 'outside the folder: shown by its absolute path');
    assert.equal(await fs.readFile(target, 'utf8'), 'outside\n');
  });

  it('through a symlink inside the workspace: the target is what is shown, compared and written', async () => {
    h = await start();
    h.mode = 'allowAll';
    await fs.writeFile(path.join(h.workspace, 'real.txt'), 'a\n');
    await fs.symlink('real.txt', path.join(h.workspace, 'alias.txt'));
    assert.match(await write(h, [{ path: path.join(h.workspace, 'alias.txt'), content: 'a\nb\n' }]), /step 1 write: ok/);
    const [record] = edits(h);
    assert.equal(record.edit.path, 'real.txt');
    assert.deepEqual({ added: record.edit.added, removed: record.edit.removed }, { added: 1, removed: 0 });
    assert.equal(await fs.readFile(path.join(h.workspace, 'real.txt'), 'utf8'), 'a\nb\n');
  });

  it('a huge file is written without reading it whole; its edit says it is too large to compare', async () => {
    h = await start();
    h.review = 'ask';
    h.answer = 'allowOnce';
    const target = path.join(h.workspace, 'huge.log');
    const handle = await fs.open(target, 'w');
    await handle.truncate(3 * 1024 ** 3);
    await handle.close();
    assert.match(await write(h, [{ path: target, content: 'short now\n' }]), /step 1 write: ok/);
    const q = h.questions[0];
    assert.equal(q.details?.type === 'edit' && q.details.edit.noDiff, 'tooLarge');
    assert.equal(q.details?.type === 'edit' && q.details.preview, undefined);
    assert.equal(await fs.readFile(target, 'utf8'), 'short now\n');
  });

  it('binary content before a write: no diff, the write still goes through in auto mode', async () => {
    h = await start();
    h.mode = 'allowAll';
    const target = path.join(h.workspace, 'logo.png');
    await fs.writeFile(target, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    assert.match(await write(h, [{ path: target, content: 'text now' }]), /step 1 write: ok/);
    assert.equal(edits(h)[0].edit.noDiff, 'binary');
  });

  it('two writes of one file in one turn: the turn\'s entry sums them from the first content', async () => {
    h = await start();
    h.mode = 'allowAll';
    const target = path.join(h.workspace, 'README.md');
    await write(h, [{ path: target, content: 'one\n' }, { path: target, content: 'one\ntwo\n' }]);
    const [first, second] = edits(h);
    assert.equal(first.file.editId, first.edit.editId);
    assert.deepEqual({ added: second.edit.added, removed: second.edit.removed }, { added: 1, removed: 0 });
    assert.deepEqual({ added: second.file.added, removed: second.file.removed }, { added: 2, removed: 2 });
  });

  it('the built-in agent\'s edit tool: one question with the diff (its permission request is covered by the review), tied to its card', async () => {
    const server = await ScriptedOpenAiServer.start();
    try {
      const bundle = await ensureAgentBundle();
      journal = new EditJournal();
      h = await AcpHarness.create({ edits: journal, launch: () => builtinLaunch({ agentScript: bundle, execPath: process.execPath, model: { provider: 'openai-compatible', baseUrl: server.url, name: 'm' }, apiKey: 'k' }) });
      h.review = 'ask';
      h.mode = 'allowReadOnly';
      h.answer = 'allowOnce';
      server.reply(
        { kind: 'toolCalls', calls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'README.md', old_text: 'Hello from', new_text: 'Greetings from' }) }] },
        { kind: 'text', chunks: ['Done.'] },
      );
      assert.equal((await h.turn('edit the readme')).reason, 'completed');
      assert.equal(h.questions.length, 1, 'the review only, not the permission request too');
      assert.equal(h.questions[0].details?.type, 'edit');
      assert.equal(await fs.readFile(path.join(h.workspace, 'README.md'), 'utf8'), '# Demo project\nGreetings from the workspace.\n');
      const [record] = edits(h);
      assert.ok(record.toolCallId, 'the write is tied to the edit_file call');
      assert.deepEqual({ added: record.edit.added, removed: record.edit.removed }, { added: 1, removed: 1 });
    } finally {
      await server.close();
    }
  });
});
