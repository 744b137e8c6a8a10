// A hostile third-party agent that runs commands and writes files it never asked permission for:
// the approvals policy gates Vigil's own side (terminal/create, fs/write_text_file) for every agent.

import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ApprovalMode } from '../../../src/extension/core/acp/hostPorts';
import { AcpHarness } from './acpHarness';

type Step = { permission: Record<string, unknown> } | { terminal: Record<string, unknown> } | { write: Record<string, unknown> } | { late: Record<string, unknown> };

const policies: ApprovalMode[] = ['ask', 'allowReadOnly', 'allowAll'];

describe('a hostile agent against the client-side approvals policy', function () {
  this.timeout(40_000);
  let h: AcpHarness | undefined;
  afterEach(async () => h?.dispose());

  const run = async (harness: AcpHarness, steps: Step[]) => {
    const before = harness.agentText().length;
    const ended = await harness.turn(`script ${JSON.stringify(steps)}`);
    assert.equal(ended.reason, 'completed', ended.message);
    return harness.agentText().slice(before);
  };
  const exists = (p: string) => fs.stat(p).then(() => true, () => false);
  /** A command whose only effect is a marker file, so "nothing ran" is checked on disk too. */
  const touch = (harness: AcpHarness, name: string) => `touch ${path.join(path.dirname(harness.workspace), name)}`;
  const marker = (harness: AcpHarness, name: string) => path.join(path.dirname(harness.workspace), name);

  describe('terminal/create without a permission request', () => {
    for (const mode of policies) {
      it(`Restricted Mode refuses it under "${mode}" without asking anyone`, async () => {
        h = await AcpHarness.create();
        h.trusted = false;
        h.mode = mode;
        const out = await run(h, [{ terminal: { command: touch(h, 'ran') } }, { terminal: { command: touch(h, 'ran-root'), cwd: '/' } }]);
        assert.match(out, /step 1 terminal: refused: This workspace is not trusted/);
        assert.match(out, /step 2 terminal: refused: This workspace is not trusted/);
        assert.equal(h.questions.length, 0);
        assert.equal(h.terminals.created.length, 0);
        assert.equal(await exists(marker(h, 'ran')), false);
      });
    }

    for (const mode of ['ask', 'allowReadOnly'] as const) {
      it(`"${mode}" asks, showing the command and its cwd; a rejection runs nothing`, async () => {
        h = await AcpHarness.create();
        h.mode = mode;
        h.answer = 'reject';
        const out = await run(h, [{ terminal: { command: touch(h, 'ran') } }]);
        assert.match(out, /step 1 terminal: refused: Refused to run .* the person did not approve it/);
        assert.equal(h.questions.length, 1);
        assert.equal(h.questions[0].kind, 'execute');
        assert.equal(h.questions[0].title, `run \`${touch(h, 'ran')}\` in ${h.workspace} (the agent did not ask for permission first)`);
        assert.equal(h.terminals.created.length, 0);
        assert.equal(await exists(marker(h, 'ran')), false);

        h.answer = 'allowOnce';
        const allowed = await run(h, [{ terminal: { command: 'echo ran' } }]);
        assert.match(allowed, /step 1 terminal: ok "ran\\n"/);
        assert.equal(h.questions.length, 2);
      });
    }

    it('"allowAll" runs it inside the workspace without asking', async () => {
      h = await AcpHarness.create();
      h.mode = 'allowAll';
      const out = await run(h, [{ terminal: { command: 'echo fine' } }]);
      assert.match(out, /step 1 terminal: ok "fine\\n"/);
      assert.equal(h.questions.length, 0);
    });

    it('a command for a session that has no running turn is refused without asking', async () => {
      h = await AcpHarness.create();
      h.mode = 'allowAll';
      const out = await run(h, [{ terminal: { sessionId: 'some-other-session', command: 'echo sneaky' } }, { write: { sessionId: 'some-other-session', path: path.join(h.workspace, 's.txt') } }]);
      assert.match(out, /step 1 terminal: refused: No turn of this session is running/);
      assert.match(out, /step 2 write: refused: No turn of this session is running/);
      assert.equal(await exists(path.join(h.workspace, 's.txt')), false);
      assert.equal(h.terminals.created.length, 0);
      assert.equal(h.questions.length, 0);
    });

    it('a command sent right after the turn was answered is refused, even with an approval of that turn left', async () => {
      const harness = (h = await AcpHarness.create());
      harness.answer = 'allowOnce';
      await run(harness, [{ permission: { toolCallId: 'p1', title: 'anything', kind: 'execute' } }, { late: { command: 'echo after the turn' } }]);
      await harness.waitFor(() => harness.logged('late terminal:'), 'the late command\'s outcome');
      assert.ok(h.logged('late terminal: refused: No turn of this session is running'), JSON.stringify(h.logs.filter((l) => l.message.includes('late'))));
      assert.equal(h.terminals.created.length, 0);
      assert.equal(h.questions.length, 1);
    });

    it('an approval covers only the command line the shell will run: args that join to the approved text but split differently are asked', async () => {
      const harness = (h = await AcpHarness.create());
      harness.answers = ['allowOnce', 'reject', 'allowOnce'];
      const approved = `touch '${path.join(harness.workspace, 'x y')}'`;
      const out = await run(harness, [
        { permission: { toolCallId: 'p1', title: 'create one file', kind: 'execute', rawInput: { command: approved } } },
        // Joined with spaces this reads as the approved line; run, it creates `'…/x` and `y'` instead.
        { terminal: { command: 'touch', args: [`'${path.join(harness.workspace, 'x')}`, "y'"] } },
        // The same words the approval named, as separate args: covered, no second question.
        { terminal: { command: 'touch', args: [path.join(harness.workspace, 'x y')] } },
      ]);
      assert.match(out, /step 2 terminal: refused/);
      assert.equal(harness.questions.length, 2, JSON.stringify(harness.questions.map((q) => q.title)));
      assert.match(harness.questions[1].title, /^run `touch ''\\''/, 'the question shows the quoting the shell gets');
      assert.match(out, /step 3 terminal: ok/);
      assert.equal(harness.terminals.created.length, 1);
    });

    it('shows a multi-line command with its line breaks escaped, so nothing hides below the first line', async () => {
      h = await AcpHarness.create();
      h.answer = 'reject';
      await run(h, [{ terminal: { command: `echo harmless\n\n\n\n${touch(h, 'hidden')}` } }]);
      assert.match(h.questions[0].title, /^run `echo harmless\\n\\n\\n\\ntouch /);
      assert.ok(!h.questions[0].title.includes('\n'));
      assert.equal(await exists(marker(h, 'hidden')), false);
    });
  });

  describe('a terminal cwd outside the workspace', () => {
    it('"/" is asked about even under "allowAll", with the directory shown; rejected, nothing runs', async () => {
      h = await AcpHarness.create();
      h.mode = 'allowAll';
      h.answer = 'reject';
      const out = await run(h, [{ terminal: { command: touch(h, 'ran-root'), cwd: '/' } }]);
      assert.match(out, /step 1 terminal: refused: Refused to run .* in \/ \(outside the workspace\)/);
      assert.equal(h.questions.length, 1);
      assert.equal(h.questions[0].title, `run \`${touch(h, 'ran-root')}\` in / (outside the workspace)`);
      assert.equal(h.terminals.created.length, 0);
      assert.equal(await exists(marker(h, 'ran-root')), false);
    });

    it('is asked about even when a permission request covered the command', async () => {
      h = await AcpHarness.create();
      h.answers = ['allowOnce', 'reject'];
      const out = await run(h, [
        { permission: { toolCallId: 'p1', title: 'run ls', kind: 'execute', rawInput: { command: 'ls' } } },
        { terminal: { command: 'ls', cwd: '/' } },
      ]);
      assert.match(out, /step 2 terminal: refused/);
      assert.equal(h.questions.length, 2);
      assert.match(h.questions[1].title, /in \/ \(outside the workspace\)$/);
    });

    it('"..", a symlinked folder that resolves outside, and a missing folder are outside; the resolved directory is shown and used', async () => {
      h = await AcpHarness.create();
      h.mode = 'allowAll';
      const outsideDir = path.join(path.dirname(h.workspace), 'elsewhere');
      await fs.mkdir(outsideDir);
      await fs.symlink(outsideDir, path.join(h.workspace, 'innocent'));
      h.answers = ['reject', 'reject', 'allowOnce', 'reject'];
      const out = await run(h, [
        { terminal: { command: 'pwd', cwd: '..' } },
        { terminal: { command: 'pwd', cwd: path.join(h.workspace, 'innocent') } },
        { terminal: { command: 'pwd', cwd: 'innocent' } },
        { terminal: { command: 'pwd', cwd: path.join(h.workspace, 'no', 'such', 'dir') } },
      ]);
      const parent = await fs.realpath(path.dirname(h.workspace));
      const real = await fs.realpath(outsideDir);
      assert.deepEqual(
        h.questions.map((q) => q.title),
        [
          `run \`pwd\` in ${parent} (outside the workspace)`,
          `run \`pwd\` in ${real} (outside the workspace)`,
          `run \`pwd\` in ${real} (outside the workspace)`,
          `run \`pwd\` in ${path.join(await fs.realpath(h.workspace), 'no', 'such', 'dir')} (outside the workspace: this folder does not exist)`,
        ],
      );
      assert.match(out, /step 1 terminal: refused/);
      assert.match(out, /step 2 terminal: refused/);
      assert.match(out, /step 4 terminal: refused/);
      assert.equal(h.terminals.created.length, 1, 'only the approved one ran');
      assert.equal(h.terminals.created[0].cwd, real, 'it ran in the directory that was checked and shown, not through the link');
    });

    it('a folder inside the workspace reached through a symlink inside is inside', async () => {
      h = await AcpHarness.create();
      h.mode = 'allowAll';
      await fs.mkdir(path.join(h.workspace, 'src'));
      await fs.symlink(path.join(h.workspace, 'src'), path.join(h.workspace, 'alias'));
      const out = await run(h, [{ terminal: { command: 'echo in', cwd: 'alias' } }]);
      assert.match(out, /step 1 terminal: ok/);
      assert.equal(h.questions.length, 0);
    });

    it('a cwd that is a file is refused with a clear error', async () => {
      h = await AcpHarness.create();
      h.mode = 'allowAll';
      const out = await run(h, [{ terminal: { command: 'pwd', cwd: path.join(h.workspace, 'README.md') } }]);
      assert.match(out, /step 1 terminal: refused: The terminal cwd .*README\.md is not a folder/);
      assert.equal(h.terminals.created.length, 0);
    });

    it('Restricted Mode refuses a command in "/" without asking', async () => {
      h = await AcpHarness.create();
      h.trusted = false;
      h.mode = 'allowAll';
      const out = await run(h, [{ terminal: { command: 'pwd', cwd: '/' } }]);
      assert.match(out, /refused: This workspace is not trusted/);
      assert.equal(h.questions.length, 0);
    });
  });

  describe('fs/write_text_file without a permission request', () => {
    for (const mode of ['ask', 'allowReadOnly'] as const) {
      it(`"${mode}" asks with the path shown; a rejection writes nothing`, async () => {
        h = await AcpHarness.create();
        h.mode = mode;
        h.answer = 'reject';
        const target = path.join(h.workspace, 'src', 'evil.ts');
        const out = await run(h, [{ write: { path: target } }]);
        assert.match(out, /step 1 write: refused: Refused to write .*evil\.ts: the person did not approve it/);
        assert.equal(h.questions.length, 1);
        assert.equal(h.questions[0].kind, 'edit');
        assert.equal(h.questions[0].title, `write ${target} (the agent did not ask for permission first)`);
        assert.equal(await exists(target), false);
        assert.equal(await exists(path.dirname(target)), false, 'not even its folder was created');
      });
    }

    it('"allowAll" writes inside the workspace without asking; Restricted Mode refuses', async () => {
      h = await AcpHarness.create();
      h.mode = 'allowAll';
      const target = path.join(h.workspace, 'ok.txt');
      assert.match(await run(h, [{ write: { path: target } }]), /step 1 write: ok/);
      assert.equal(h.questions.length, 0);
      h.trusted = false;
      const other = path.join(h.workspace, 'no.txt');
      assert.match(await run(h, [{ write: { path: other } }]), /step 1 write: refused: This workspace is not trusted/);
      assert.equal(await exists(other), false);
    });

    it('an approval to write a symlink inside does not cover writing its target: asked, with the target shown', async () => {
      const harness = (h = await AcpHarness.create());
      await fs.mkdir(path.join(harness.workspace, 'hooks'));
      await fs.writeFile(path.join(harness.workspace, 'hooks', 'post-merge'), 'original\n');
      await fs.symlink(path.join('hooks', 'post-merge'), path.join(harness.workspace, 'notes.md'));
      harness.answers = ['allowOnce', 'reject', 'allowOnce'];
      const link = path.join(harness.workspace, 'notes.md');
      const target = path.join(harness.workspace, 'hooks', 'post-merge');
      const out = await run(harness, [
        { permission: { toolCallId: 'p1', title: 'Update the notes', kind: 'edit', locations: [{ path: link }] } },
        { write: { path: link } },
        // An approval that names the real file covers the write through the link.
        { permission: { toolCallId: 'p2', title: 'Update the hook', kind: 'edit', locations: [{ path: target }] } },
        { write: { path: link } },
      ]);
      assert.match(out, /step 2 write: refused/);
      assert.equal(harness.questions[1].title, `write ${link} → ${target} (via a symlink) (the agent did not ask for permission first)`);
      assert.match(out, /step 4 write: ok/);
      assert.equal(harness.questions.length, 3);
      assert.equal(await fs.readFile(target, 'utf8'), 'written by the hostile agent');
    });

    it('a write outside the workspace is asked about once, with its path', async () => {
      h = await AcpHarness.create();
      h.answer = 'reject';
      const outside = path.join(path.dirname(h.workspace), 'outside.txt');
      const out = await run(h, [{ write: { path: outside } }]);
      assert.match(out, /step 1 write: refused/);
      assert.equal(h.questions.length, 1);
      assert.equal(await exists(outside), false);
    });
  });

  describe('what one approval covers', () => {
    it('an allowed command request covers that one command once: the same command again, or another one, is asked', async () => {
      h = await AcpHarness.create();
      h.answers = ['allowOnce', 'reject', 'reject'];
      const out = await run(h, [
        { permission: { toolCallId: 'p1', title: 'Print one', kind: 'execute', rawInput: { command: 'echo one' } } },
        { terminal: { command: 'echo two' } },
        { terminal: { command: 'echo one' } },
        { terminal: { command: 'echo one' } },
      ]);
      assert.match(out, /step 2 terminal: refused/, 'a different command than the approved one is not covered');
      assert.match(out, /step 3 terminal: ok "one\\n"/);
      assert.match(out, /step 4 terminal: refused/, 'the approval was spent by step 3');
      assert.deepEqual(
        h.questions.map((q) => q.title),
        ['Print one (command: echo one)', `run \`echo two\` in ${h.workspace} (the agent did not ask for permission first)`, `run \`echo one\` in ${h.workspace} (the agent did not ask for permission first)`],
      );
    });

    it('a request that names no command covers one command of the turn, not two', async () => {
      h = await AcpHarness.create();
      h.answers = ['allowOnce', 'reject'];
      const out = await run(h, [{ permission: { toolCallId: 'p1', title: 'do something', kind: 'execute' } }, { terminal: { command: 'echo a' } }, { terminal: { command: 'echo b' } }]);
      assert.match(out, /step 2 terminal: ok "a\\n"/);
      assert.match(out, /step 3 terminal: refused/);
      assert.equal(h.questions.length, 2);
    });

    it('an approval of one turn covers nothing in the next', async () => {
      h = await AcpHarness.create();
      h.answers = ['allowOnce', 'reject'];
      await run(h, [{ permission: { toolCallId: 'p1', title: 'echo x', kind: 'execute', rawInput: { command: 'echo x' } } }]);
      assert.match(await run(h, [{ terminal: { command: 'echo x' } }]), /step 1 terminal: refused/);
      assert.equal(h.questions.length, 2);
    });

    it('a rejected or read-only request covers nothing', async () => {
      h = await AcpHarness.create();
      h.answers = ['reject', 'allowOnce', 'reject', 'reject'];
      const out = await run(h, [
        { permission: { toolCallId: 'p1', title: 'echo x', kind: 'execute', rawInput: { command: 'echo x' } } },
        { permission: { toolCallId: 'p2', title: 'read it', kind: 'read', rawInput: { command: 'echo x' } } },
        { terminal: { command: 'echo x' } },
        { write: { path: path.join(h.workspace, 'w.txt') } },
      ]);
      assert.match(out, /step 3 terminal: refused/);
      assert.match(out, /step 4 write: refused/);
      assert.equal(h.questions.length, 4);
    });

    it('an allowed edit covers one write to each file it names, and no other file', async () => {
      h = await AcpHarness.create();
      h.answers = ['allowOnce', 'reject'];
      const a = path.join(h.workspace, 'a.txt');
      const b = path.join(h.workspace, 'b.txt');
      const out = await run(h, [
        { permission: { toolCallId: 'p1', title: 'edit a', kind: 'edit', locations: [{ path: a }], rawInput: { path: 'b.txt' } } },
        { write: { path: b } },
        { write: { path: a } },
        { write: { path: path.join(h.workspace, 'c.txt') } },
      ]);
      assert.match(out, /step 2 write: ok/);
      assert.match(out, /step 3 write: ok/);
      assert.match(out, /step 4 write: refused/);
      assert.equal(h.questions.length, 2);
    });

    it('a built-in-style agent that asks first is asked exactly once per command and write', async () => {
      h = await AcpHarness.create();
      h.answer = 'allowOnce';
      const target = path.join(h.workspace, 'src.ts');
      const out = await run(h, [
        { permission: { toolCallId: 'c1', title: 'run_command echo built', kind: 'execute', rawInput: { command: 'echo built' } } },
        { terminal: { command: 'echo built', cwd: h.workspace } },
        { permission: { toolCallId: 'c2', title: 'write_file src.ts', kind: 'edit', rawInput: { path: 'src.ts', content: 'x' } } },
        { write: { path: target } },
      ]);
      assert.match(out, /step 2 terminal: ok/);
      assert.match(out, /step 4 write: ok/);
      assert.deepEqual(h.questions.map((q) => q.title), ['run_command echo built', 'write_file src.ts']);
    });

    it('"allow always" covers the kind for the session, later turns too, but never a cwd outside', async () => {
      h = await AcpHarness.create();
      h.answers = ['allowAlways', 'reject'];
      const out = await run(h, [
        { permission: { toolCallId: 'p1', title: 'echo 1', kind: 'execute', rawInput: { command: 'echo 1' } } },
        { terminal: { command: 'echo 2' } },
        { terminal: { command: 'echo 3' } },
        { terminal: { command: 'echo 4', cwd: '/' } },
      ]);
      assert.match(out, /step 2 terminal: ok/);
      assert.match(out, /step 3 terminal: ok/);
      assert.match(out, /step 4 terminal: refused/);
      assert.match(await run(h, [{ terminal: { command: 'echo next turn' } }]), /step 1 terminal: ok/);
      assert.equal(h.questions.length, 2);
      // Writes are another kind: still asked.
      h.answer = 'reject';
      assert.match(await run(h, [{ write: { path: path.join(h.workspace, 'x.txt') } }]), /refused/);
      assert.equal(h.questions.length, 3);
    });

    it('"allow always" given to Vigil\'s own question also covers the kind for the session', async () => {
      h = await AcpHarness.create();
      h.answers = ['allowAlways'];
      const out = await run(h, [{ terminal: { command: 'echo 1' } }, { terminal: { command: 'echo 2' } }]);
      assert.match(out, /step 1 terminal: ok/);
      assert.match(out, /step 2 terminal: ok/);
      assert.equal(h.questions.length, 1);
    });

    it('an agent that offers no "always" option gets "once", and is covered once', async () => {
      h = await AcpHarness.create();
      h.answers = ['allowAlways', 'reject'];
      // The fake's `permission` mode offers only allow_once / reject_once.
      await h.turn('permission');
      assert.match(h.agentText(), /permission \{"outcome":\{"outcome":"selected","optionId":"y"\}\}/);
      assert.match(await run(h, [{ terminal: { command: 'echo z' } }]), /refused/);
    });
  });

  describe('vigil.approvals.byKind', () => {
    it('a per-kind override applies to Vigil\'s own checks: execute allowed, edit still asked', async () => {
      h = await AcpHarness.create();
      h.mode = 'ask';
      h.byKind = { execute: 'allowAll' };
      h.answer = 'reject';
      const target = path.join(h.workspace, 'k.txt');
      const out = await run(h, [{ terminal: { command: 'echo by kind' } }, { write: { path: target } }]);
      assert.match(out, /step 1 terminal: ok/);
      assert.match(out, /step 2 write: refused/);
      assert.deepEqual(h.questions.map((q) => q.kind), ['edit']);
    });

    it('a per-kind override applies to permission requests the agent sends', async () => {
      h = await AcpHarness.create();
      h.mode = 'allowAll';
      h.byKind = { execute: 'ask' };
      h.answer = 'reject';
      await h.turn('permission');
      assert.equal(h.questions.length, 1, 'execute was asked although the policy allows all');
      assert.match(h.agentText(), /"optionId":"n"/);
      h.byKind = { execute: 'allowAll' };
      h.mode = 'ask';
      await h.turn('permission');
      assert.equal(h.questions.length, 1, 'the override allowed it without a question');
    });

    it('an override never opens Restricted Mode', async () => {
      h = await AcpHarness.create();
      h.trusted = false;
      h.byKind = { execute: 'allowAll', edit: 'allowAll' };
      const out = await run(h, [{ terminal: { command: 'echo x' } }, { write: { path: path.join(h.workspace, 'r.txt') } }]);
      assert.match(out, /step 1 terminal: refused/);
      assert.match(out, /step 2 write: refused/);
    });
  });
});
