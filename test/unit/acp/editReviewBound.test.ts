// Writes waiting for the person's review (`vigil.edits.review: "ask"`) are bounded like the edit journal: in number
// and in what they hold. One beyond the bound is refused unwritten with what to do; the writes already made or
// waiting are untouched, and the diffs being reviewed are never dropped for room.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EditJournal, type EditJournalLimits } from '../../../src/extension/core/acp/editJournal';
import { writeWithDiff } from '../../../src/extension/core/acp/editWrites';
import type { PermissionAnswer, PermissionPrompter, PermissionQuestion } from '../../../src/extension/core/acp/hostPorts';
import { PermissionGate } from '../../../src/extension/core/acp/permissionGate';
import { locatePath } from '../../../src/extension/core/acp/workspaceBoundary';
import { WorkspaceFs } from '../../../src/extension/core/acp/workspaceFs';
import { waitFor } from '../supervisor/harness';

/** The person: every question stays open until the test answers it. */
class HeldQuestions implements PermissionPrompter {
  readonly open: Array<{ question: PermissionQuestion; answer(a: PermissionAnswer): void }> = [];
  ask(question: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer> {
    return new Promise((resolve) => {
      this.open.push({ question, answer: resolve });
      signal.addEventListener('abort', () => resolve('cancelled'), { once: true });
    });
  }
}

describe('writes waiting for review are bounded', () => {
  let root: string;
  let person: HeldQuestions;
  let journal: EditJournal;
  let workspace: WorkspaceFs;
  let gate: PermissionGate;
  const turn = {};

  const setUp = async (limits: Partial<EditJournalLimits>) => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-review-bound-')));
    person = new HeldQuestions();
    journal = new EditJournal(limits);
    workspace = new WorkspaceFs(root);
    gate = new PermissionGate({ isTrusted: () => true, mode: () => 'allowAll', editReview: () => 'ask' }, person, root);
  };
  afterEach(async () => fs.rm(root, { recursive: true, force: true }));

  /** One fs/write_text_file as acpConnection makes it; settles with the error message, or 'written'. */
  const write = async (name: string, content: string): Promise<string> => {
    const where = await locatePath(root, name);
    const op = { kind: 'edit' as const, path: where.abs };
    const hooks = { opened: () => undefined, closed: () => undefined };
    try {
      await writeWithDiff(workspace, gate, journal, {
        sessionId: 's', where, content, op, turn,
        authorize: async () => undefined,
        review: (g, proposal) => g.reviewEdit('s', op, { type: 'edit', edit: proposal.edit.view, review: true }, hooks, new AbortController().signal),
        recorded: () => undefined,
      });
      return 'written';
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('in number: a write beyond the bound is refused unwritten, and may be written again once one is answered', async () => {
    await setUp({ maxPendingReviews: 3 });
    await fs.writeFile(path.join(root, 'd.txt'), 'the person’s text\n');
    const waiting = ['a.txt', 'b.txt', 'c.txt'].map((name) => write(name, `new ${name}\n`));
    await waitFor(() => person.open.length === 3, 'three reviews to open');
    assert.match(await write('d.txt', 'agent text\n'), /^Did not write d\.txt: 3 writes already wait for the person's review, the most Vigil holds at once\. The file is unchanged.*Wait until the person has answered the edits waiting for review, then write this file again\.$/);
    assert.equal(await fs.readFile(path.join(root, 'd.txt'), 'utf8'), 'the person’s text\n', 'the refused write changed nothing');
    assert.equal(person.open.length, 3, 'the refused write asked nothing');
    assert.deepEqual(journal.pendingReviews.count, 3);

    // The reviews open in whatever order the writes reach them: answer a.txt's.
    const first = person.open.findIndex((q) => q.question.title.startsWith('edit a.txt '));
    person.open.splice(first, 1)[0].answer('allowOnce');
    assert.equal(await waiting[0], 'written');
    const again = write('d.txt', 'agent text\n');
    await waitFor(() => person.open.length === 3, 'the write made again to wait for review');
    for (const q of person.open.splice(0)) q.answer('allowOnce');
    assert.deepEqual(await Promise.all([waiting[1], waiting[2], again]), ['written', 'written', 'written']);
    assert.equal(await fs.readFile(path.join(root, 'a.txt'), 'utf8'), 'new a.txt\n', 'what was written before the refusal is kept');
    assert.equal(await fs.readFile(path.join(root, 'd.txt'), 'utf8'), 'agent text\n');
    assert.deepEqual(journal.pendingReviews, { count: 0, chars: 0 });
  });

  it('in what they hold: 150 writes of 1.9 MB waiting for review hold at most the bound; one alone always may wait', async () => {
    await setUp({});
    const big = 'x'.repeat(1_900_000);
    const writes = Array.from({ length: 150 }, (_, i) => write(`f${i}.txt`, big));
    // Every write either waits for its review or is refused at once.
    const refused: string[] = [];
    for (const w of writes) void w.then((message) => refused.push(message));
    await waitFor(() => person.open.length + refused.length === 150, 'every write to wait or be refused');
    assert.equal(person.open.length, 8, 'as many as fit in 16 million characters wait');
    for (const message of refused) {
      assert.match(message, /^Did not write f\d+\.txt: the writes waiting for the person's review already hold 15\.2 million characters, and this one would add 1\.9 million, beyond the 16\.0 million Vigil holds at once\. The file is unchanged/);
    }
    assert.ok(journal.pendingReviews.chars <= 16_000_000, `${journal.pendingReviews.chars} characters held`);
    for (const q of person.open.splice(0)) q.answer('reject');
    await Promise.all(writes);
    assert.deepEqual(journal.pendingReviews, { count: 0, chars: 0 });
    assert.deepEqual((await fs.readdir(root)).length, 0, 'nothing was written');
    // A single write larger than the whole bound still waits: its request holds its content anyway.
    const huge = write('huge.txt', 'y'.repeat(17_000_000));
    await waitFor(() => person.open.length === 1, 'the huge write to wait');
    person.open.shift()!.answer('allowOnce');
    assert.equal(await huge, 'written');
  });

  it('the diffs being reviewed are never dropped for room; finished ones are, oldest first', () => {
    const j = new EditJournal({ maxSideChars: 1_000, maxTotalChars: 100, maxPendingChars: 50 });
    const side = (text: string) => ({ kind: 'text' as const, text });
    const done = j.propose('s', '/ws', '/ws/done', side(''), 'd'.repeat(40));
    j.commit(done, {});
    const waiting = j.propose('s', '/ws', '/ws/waiting', side(''), 'w'.repeat(40), { review: true });
    for (let i = 0; i < 3; i += 1) j.commit(j.propose('s', '/ws', `/ws/later${i}`, side(''), 'l'.repeat(40)), {});
    assert.ok(j.get(waiting.edit.editId), 'the diff under review is still there');
    assert.equal(j.get(done.edit.editId), undefined, 'the oldest finished one was dropped');
    assert.ok(j.keptChars <= 100);
    j.discard(waiting);
    assert.deepEqual(j.pendingReviews, { count: 0, chars: 0 });
  });
});
