// Task mirrors in the extension host: a real terminal per task, reused, read-only, closing it never kills the task.

import * as assert from 'node:assert';
import * as vscode from 'vscode';
import { EventHub } from '../../../src/extension/core/common/events';
import { Redactor } from '../../../src/extension/core/common/redactor';
import { silentLogger } from '../../../src/extension/core/ports/logger';
import type { TaskEvent, TaskSnapshot } from '../../../src/extension/core/tasks/taskTypes';
import { TaskTerminals, type TaskSource } from '../../../src/extension/vscode/taskTerminal';
import { Stubs, until, waitFor } from './stubs';

function snapshot(patch: Partial<TaskSnapshot> = {}): TaskSnapshot {
  return {
    v: 1, id: 't-1', sessionId: 's1', command: 'npm test', cwd: '/w', pid: 42, background: true, notify: {}, outputByteLimit: 1024,
    startedAt: Date.now() - 5_000, endedAt: null, exitCode: null, signal: null, status: 'running', patternMatchedAt: null, killRequestedAt: null,
    output: 'line 1\n', truncated: false, ...patch,
  };
}

class FakeTasks implements TaskSource {
  readonly hub = new EventHub<TaskEvent>();
  readonly killed: string[] = [];
  tasks = [snapshot(), snapshot({ id: 't-2', command: 'make', status: 'exited', exitCode: 0, endedAt: Date.now() })];
  list(): TaskSnapshot[] {
    return this.tasks;
  }
  async get(id: string): Promise<TaskSnapshot | undefined> {
    return this.tasks.find((t) => t.id === id);
  }
  subscribe(listener: (event: TaskEvent) => void): () => void {
    return this.hub.subscribe(listener);
  }
  async kill(id: string): Promise<void> {
    this.killed.push(id);
  }
}

describe('task terminal mirrors (extension host)', () => {
  const stubs = new Stubs();
  let source: FakeTasks;
  let terminals: TaskTerminals;

  beforeEach(() => {
    source = new FakeTasks();
    terminals = new TaskTerminals({ tasks: async () => source, logger: silentLogger });
  });

  afterEach(() => {
    stubs.restore();
    terminals.dispose();
  });

  it('opens one terminal per task and reuses it', async () => {
    const opened = waitFor<vscode.Terminal>((l) => vscode.window.onDidOpenTerminal(l), (t) => t.name.startsWith('Vigil t-1'));
    await Promise.all([terminals.show('t-1'), terminals.show('t-1')]);
    const terminal = await opened;
    assert.strictEqual(terminal.name, 'Vigil t-1: npm test');
    await terminals.show('t-1');
    assert.strictEqual(terminals.openCount, 1);
    assert.strictEqual(vscode.window.terminals.filter((t) => t.name === terminal.name).length, 1);
  });

  it('follows live output, ignores typing and Ctrl+C, and closing it leaves the task running', async () => {
    await terminals.show('t-1');
    const mirror = terminals.mirrorFor('t-1')!;
    const written: string[] = [];
    mirror.pty.onDidWrite((text) => written.push(text));
    source.hub.emit({ type: 'output', taskId: 't-1', sessionId: 's1', chunk: 'line 2\n' });
    source.hub.emit({ type: 'output', taskId: 't-other', sessionId: 's1', chunk: 'not mine\n' });
    mirror.pty.handleInput?.('\x03');
    source.hub.emit({ type: 'changed', task: snapshot({ status: 'exited', exitCode: 3, endedAt: Date.now() }) });
    // Writes wait for the terminal to open in the workbench; they arrive in order once it does.
    await until(() => written.join('').includes('[Task t-1'), 'the exit line');
    const text = written.join('');
    assert.match(text, /line 2\r\n/);
    assert.doesNotMatch(text, /not mine/);
    assert.match(text, /Ctrl\+C do not reach it/);
    assert.match(text, /\[Task t-1 exited with code 3/);
    mirror.terminal!.dispose();
    await until(() => terminals.openCount === 0, 'the mirror to notice its terminal closed');
    assert.strictEqual(source.hub.size, 0, 'no longer subscribed');
    assert.deepStrictEqual(source.killed, []);
  });

  it('an unknown task says so instead of opening an empty terminal', async () => {
    const warnings: string[] = [];
    stubs.add(vscode.window, 'showWarningMessage', (async (m: string) => {
      warnings.push(m);
      return undefined;
    }) as typeof vscode.window.showWarningMessage);
    await terminals.show('t-404');
    assert.strictEqual(terminals.openCount, 0);
    assert.match(warnings[0], /task t-404 is not known/);
  });

  it('Kill Background Task lists running tasks only and kills after confirmation', async () => {
    let offered: string[] = [];
    stubs.add(vscode.window, 'showQuickPick', (async (items: readonly (vscode.QuickPickItem & { task: TaskSnapshot })[]) => {
      offered = items.map((i) => i.task.id);
      return items[0];
    }) as unknown as typeof vscode.window.showQuickPick);
    stubs.add(vscode.window, 'showWarningMessage', (async () => 'Kill') as unknown as typeof vscode.window.showWarningMessage);
    await terminals.killBackgroundTask();
    assert.deepStrictEqual(offered, ['t-1']);
    assert.deepStrictEqual(source.killed, ['t-1']);
  });

  it('Show Background Tasks lists every task with status and opens the picked one', async () => {
    let rows: vscode.QuickPickItem[] = [];
    stubs.add(vscode.window, 'showQuickPick', (async (items: readonly (vscode.QuickPickItem & { taskId: string })[]) => {
      rows = [...items];
      return items.find((i) => i.taskId === 't-2');
    }) as unknown as typeof vscode.window.showQuickPick);
    await terminals.showBackgroundTasks();
    assert.strictEqual(rows.length, 2);
    assert.ok(rows.some((r) => r.label === '$(pass) make' && /^exit code 0 · /.test(r.description ?? '')));
    assert.ok(terminals.mirrorFor('t-2'));
  });

  it('shows no part of a secret in a tab name, a pick row or the kill question, even where the command is shortened', async () => {
    const key = 'sk-live-0123456789abcdefghijklmnopqrstuvwxyz';
    const redactor = new Redactor();
    redactor.add([key]);
    terminals.dispose();
    terminals = new TaskTerminals({ tasks: async () => source, logger: silentLogger, redactor });
    // Long enough that every shortened form cuts through the key.
    source.tasks = [snapshot({ command: `curl -s -H "Authorization: Bearer ${key}" https://api.example.invalid/v1/long/path` })];
    const shown: string[] = [];
    stubs.add(vscode.window, 'showQuickPick', (async (items: readonly vscode.QuickPickItem[]) => {
      shown.push(...items.map((i) => `${i.label} ${i.description ?? ''} ${i.detail ?? ''}`));
      return items[0];
    }) as unknown as typeof vscode.window.showQuickPick);
    stubs.add(vscode.window, 'showWarningMessage', (async (m: string) => {
      shown.push(m);
      return 'Kill';
    }) as unknown as typeof vscode.window.showWarningMessage);
    const opened = waitFor<vscode.Terminal>((l) => vscode.window.onDidOpenTerminal(l), (t) => t.name.startsWith('Vigil t-1'));
    await terminals.showBackgroundTasks();
    shown.push((await opened).name);
    await terminals.killBackgroundTask();
    assert.ok(shown.length >= 3);
    for (const text of shown) assert.ok(!text.includes(key.slice(0, 5)), `a piece of the key is shown: ${text}`);
  });
});
