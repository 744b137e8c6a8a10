// What a tool call names (commands, files) and how agent-chosen text is shown in a question.

import * as assert from 'node:assert/strict';
import { describeOp, describePermission, shown, targetsOf } from '../../../src/extension/core/acp/clientGrants';

describe('client grants: targets and questions', () => {
  it('reads commands and files from rawInput and locations, resolving relative paths against the workspace', () => {
    assert.deepEqual(targetsOf({ rawInput: { command: '  npm   test ' } }, '/ws'), { commands: ['npm test'], paths: [] });
    assert.deepEqual(targetsOf({ rawInput: { command: ['bash', '-lc', 'ls'] } }, '/ws'), { commands: ['bash -lc ls'], paths: [] });
    // An argv is quoted as terminal/create's command and args are, so it matches exactly what the shell runs.
    assert.deepEqual(targetsOf({ rawInput: { command: ['bash', '-lc', 'ls -la && make'] } }, '/ws'), { commands: ["bash -lc 'ls -la && make'"], paths: [] });
    assert.deepEqual(targetsOf({ rawInput: { file_path: 'src/a.ts' }, locations: [{ path: '/ws/b.ts' }, { path: '/ws/b.ts' }] }, '/ws'), { commands: [], paths: ['/ws/src/a.ts', '/ws/b.ts'] });
    assert.deepEqual(targetsOf({ rawInput: 'rm -rf /', locations: null }, '/ws'), { commands: [], paths: [] });
    assert.deepEqual(targetsOf({ rawInput: { command: [1, 2], path: 'a\0b' } }, '/ws'), { commands: [], paths: [] });
  });

  it('shows control, bidi and zero-width characters escaped, and keeps the end of a long text', () => {
    assert.equal(shown('echo a\nrm -rf ~'), 'echo a\\nrm -rf ~');
    assert.equal(shown('ls \u202Etxt.exe'), 'ls \\u{202e}txt.exe');
    assert.equal(shown('a\u200bb'), 'a\\u{200b}b');
    const long = shown(`echo ${'x'.repeat(1_000)}; rm -rf ~`);
    assert.ok(long.length < 400);
    assert.match(long, /characters left out/);
    assert.match(long, /; rm -rf ~$/, 'the dangerous end stays in sight');
  });

  it('adds to the agent\'s title what the approval will be held to, unless the title says it', () => {
    assert.equal(describePermission('Run tests', { commands: ['npm test'], paths: [] }, '/ws'), 'Run tests (command: npm test)');
    assert.equal(describePermission('npm test', { commands: ['npm test'], paths: [] }, '/ws'), 'npm test');
    assert.equal(describePermission('write_file a.ts', { commands: [], paths: ['/ws/a.ts', '/etc/x'] }, '/ws'), 'write_file a.ts (file: /etc/x)');
  });

  it('describes an operation with its command, cwd, environment and background flag', () => {
    assert.equal(describeOp({ kind: 'execute', commandLine: 'make', cwd: '/ws', cwdInside: true, background: true, envNames: ['LD_PRELOAD'] }), 'run in the background `make` in /ws with environment LD_PRELOAD');
    assert.equal(describeOp({ kind: 'execute', commandLine: 'make', cwd: '/x', cwdInside: false, cwdMissing: true, background: false, envNames: [] }), 'run `make` in /x (outside the workspace: this folder does not exist)');
    assert.equal(describeOp({ kind: 'edit', path: '/ws/a\nb' }), 'write /ws/a\\nb');
  });
});
