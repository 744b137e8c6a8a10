// Command approvals in readable form: the command, its folder and whether it runs in the background, from an agent's
// permission request or from Vigil's own terminal/create check; hostile text is shown escaped.

import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { commandDetailsOf } from '../../../src/extension/core/acp/approvalDetails';
import { EditJournal } from '../../../src/extension/core/acp/editJournal';
import { AcpHarness } from './acpHarness';

describe('readable command approvals', function () {
  this.timeout(40_000);
  let h: AcpHarness | undefined;
  afterEach(async () => h?.dispose());

  it('reads the fields agents use for a command, its folder and a background run', () => {
    assert.deepEqual(commandDetailsOf({ rawInput: { command: 'npm test', cwd: '/ws/app', run_in_background: true } }), { type: 'command', command: 'npm test', cwd: '/ws/app', background: true });
    assert.deepEqual(commandDetailsOf({ rawInput: { command: ['rm', '-rf', 'x y'], workdir: '/ws' } }), { type: 'command', command: "rm -rf 'x y'", cwd: '/ws', background: false });
    assert.equal(commandDetailsOf({ rawInput: { path: 'a.ts' } }), undefined);
    assert.equal(commandDetailsOf({ rawInput: 'npm test' }), undefined);
    const hostile = commandDetailsOf({ rawInput: { command: 'ls\u202e\nrm -rf ~' } });
    assert.equal(hostile?.type === 'command' && hostile.command, 'ls\\u{202e}\\nrm -rf ~', 'bidi and newlines are shown, not obeyed');
  });

  it('an agent\'s permission request carries the details and its raw input', async () => {
    h = await AcpHarness.create();
    const rawInput = { command: 'npm test', cwd: h.workspace, background: true };
    const ended = await h.turn(`script ${JSON.stringify([{ permission: { toolCallId: 'c1', title: 'Run tests', kind: 'execute', rawInput } }])}`);
    assert.equal(ended.reason, 'completed');
    assert.deepEqual(h.questions[0].details, { type: 'command', command: 'npm test', cwd: h.workspace, background: true });
    assert.deepEqual(h.questions[0].rawInput, rawInput);
  });

  it('terminal/create asked by Vigil shows the command line, the checked folder, and env by names only', async () => {
    h = await AcpHarness.create();
    h.answer = 'reject';
    const sub = path.join(h.workspace);
    await h.turn(`script ${JSON.stringify([{ terminal: { command: 'echo', args: ['a b'], cwd: sub, env: [{ name: 'TOKEN', value: 'secret-value' }] } }])}`);
    const q = h.questions[0];
    assert.equal(q.details?.type, 'command');
    assert.equal(q.details?.type === 'command' && q.details.command, "echo 'a b'");
    assert.equal(q.details?.type === 'command' && q.details.background, false);
    assert.ok(!JSON.stringify(q.rawInput).includes('secret-value'), 'env values never reach the view');
    assert.deepEqual((q.rawInput as { env: string[] }).env, ['TOKEN']);
  });

  it('an edit permission request with ACP diff content shows that diff and keeps it for the diff editor', async () => {
    const journal = new EditJournal();
    h = await AcpHarness.create({ edits: journal });
    const toolCall = { toolCallId: 'e1', title: 'Edit a.ts', kind: 'edit', content: [{ type: 'diff', path: 'src/a.ts', oldText: 'one\n', newText: 'one\ntwo\n' }] };
    await h.turn(`script ${JSON.stringify([{ permission: toolCall }])}`);
    const d = h.questions[0].details;
    assert.equal(d?.type, 'edit');
    if (d?.type !== 'edit') return;
    assert.equal(d.review, undefined, 'a permission request keeps allow once / always / reject');
    assert.deepEqual({ path: d.edit.path, added: d.edit.added, removed: d.edit.removed }, { path: path.join('src', 'a.ts'), added: 1, removed: 0 });
    assert.deepEqual(d.preview, { oldText: 'one\n', newText: 'one\ntwo\n' });
    assert.deepEqual(journal.get(d.edit.editId)?.after, { kind: 'text', text: 'one\ntwo\n' });
  });
});
