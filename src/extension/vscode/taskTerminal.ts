// Pseudoterminal mirrors of background tasks (replay, then follow live; read-only; closing never kills),
// and the "Show Background Tasks" / "Kill Background Task…" commands.

import * as vscode from 'vscode';
import { Disposable, toDisposable, type IDisposable } from '../core/common/disposable';
import { errorMessage } from '../core/common/errors';
import type { Logger } from '../core/ports/logger';
import type { Redactor } from '../core/common/redactor';
import type { TaskEvent, TaskSnapshot } from '../core/tasks/taskTypes';
import { TaskMirrorFeed } from '../presentation/taskMirrorFeed';
import { mirrorName, oneLine, presentTaskPick } from '../presentation/taskPresentation';

/** What the mirrors need of the task registry (TaskRegistry fits as is). */
export interface TaskSource {
  list(filter?: { sessionId?: string }): TaskSnapshot[];
  /** For a live task the snapshot must be taken synchronously in the call (TaskRegistry does), so no chunk falls between it and `subscribe`. */
  get(taskId: string): Promise<TaskSnapshot | undefined>;
  subscribe(listener: (event: TaskEvent) => void): () => void;
  kill(taskId: string): Promise<void>;
}

export interface TaskTerminalDeps {
  /** The registry; a getter so it can be opened lazily. */
  tasks(): Promise<TaskSource>;
  /** Session titles for the quick pick; optional. */
  sessionTitle?(sessionId: string): string | undefined;
  logger: Logger;
  now?: () => number;
  /** Cuts secrets out of what the mirrors show (output as one stream, so a split secret is caught too). */
  redactor?: Redactor;
}

class TaskMirror extends Disposable implements vscode.Pseudoterminal {
  private readonly _onDidWrite = this._register(new vscode.EventEmitter<string>());
  readonly onDidWrite = this._onDidWrite.event;
  readonly feed: TaskMirrorFeed;
  terminal: vscode.Terminal | undefined;

  constructor(
    readonly taskId: string,
    private readonly onClosed: () => void,
    redactor?: Redactor,
  ) {
    super();
    const shown = redactor?.stream();
    this.feed = new TaskMirrorFeed((text) => this._onDidWrite.fire(shown ? shown.push(text) : text));
  }

  /** Ties the registry subscription to the mirror's life. */
  track(child: IDisposable): void {
    this._register(child);
  }

  open(): void {
    this.feed.open();
  }

  /** The person closed the terminal: stop following; the task itself is untouched. */
  close(): void {
    this.onClosed();
  }

  handleInput(data: string): void {
    this.feed.input(data);
  }
}

export class TaskTerminals extends Disposable {
  private readonly mirrors = new Map<string, TaskMirror>();
  /** Mirrors being opened: a second click meanwhile waits for the first instead of opening a twin. */
  private readonly opening = new Map<string, Promise<void>>();
  private readonly now: () => number;

  constructor(private readonly deps: TaskTerminalDeps) {
    super();
    this.now = deps.now ?? Date.now;
    this._register(vscode.window.onDidCloseTerminal((terminal) => {
      for (const mirror of this.mirrors.values()) if (mirror.terminal === terminal) this.drop(mirror);
    }));
    this._register(toDisposable(() => {
      for (const mirror of [...this.mirrors.values()]) {
        mirror.terminal?.dispose();
        this.drop(mirror);
      }
    }));
  }

  /** Opens (or brings forward) the mirror of one task. */
  async show(taskId: string): Promise<void> {
    const existing = this.mirrors.get(taskId);
    if (existing?.terminal) {
      existing.terminal.show();
      return;
    }
    const pending = this.opening.get(taskId);
    if (pending) return pending;
    const opened = this.open(taskId).finally(() => this.opening.delete(taskId));
    this.opening.set(taskId, opened);
    return opened;
  }

  /** Number of open mirrors (for tests). */
  get openCount(): number {
    return this.mirrors.size;
  }

  /** The open mirror of a task: its terminal and pseudoterminal (tests type into it). */
  mirrorFor(taskId: string): { terminal: vscode.Terminal | undefined; pty: vscode.Pseudoterminal } | undefined {
    const mirror = this.mirrors.get(taskId);
    return mirror ? { terminal: mirror.terminal, pty: mirror } : undefined;
  }

  private async open(taskId: string): Promise<void> {
    const source = await this.deps.tasks();
    const mirror = new TaskMirror(taskId, () => this.drop(mirror), this.deps.redactor);
    // Subscribe before reading the snapshot; events that arrive while it resolves are replayed after it.
    let queue: TaskEvent[] | undefined = [];
    const apply = (event: TaskEvent) => {
      if (event.type === 'output' && event.taskId === taskId) mirror.feed.output(event.chunk);
      else if (event.type === 'changed' && event.task.id === taskId) mirror.feed.end(event.task);
    };
    const unsubscribe = source.subscribe((event) => (queue ? queue.push(event) : apply(event)));
    mirror.track(toDisposable(unsubscribe));
    let snapshot: TaskSnapshot | undefined;
    try {
      snapshot = await source.get(taskId);
    } catch (error) {
      mirror.dispose();
      this.deps.logger.error(`[tasks] reading task ${taskId} failed: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Vigil: could not read task {0}: {1}', taskId, errorMessage(error)));
      return;
    }
    if (!snapshot) {
      mirror.dispose();
      void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: task {0} is not known (it may have been released and cleaned up).', taskId));
      return;
    }
    mirror.feed.header(snapshot, snapshot.truncated);
    mirror.feed.output(snapshot.output);
    mirror.feed.end(snapshot);
    for (const event of queue.splice(0)) apply(event);
    queue = undefined;
    this.mirrors.set(taskId, mirror);
    // Transient: a pty mirror cannot be revived by terminal persistence after a reload.
    const name = mirrorName(this.redacted(snapshot));
    mirror.terminal = vscode.window.createTerminal({ name, pty: mirror, iconPath: new vscode.ThemeIcon('terminal'), isTransient: true });
    mirror.terminal.show();
  }

  /** `vigil.showBackgroundTasks`: every task of every session, newest first; picking one opens its mirror. */
  async showBackgroundTasks(): Promise<void> {
    const tasks = (await this.deps.tasks()).list().map((t) => this.redacted(t)).sort((a, b) => b.startedAt - a.startedAt);
    if (tasks.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: no background tasks yet.'));
      return;
    }
    const now = this.now();
    const picked = await vscode.window.showQuickPick(
      tasks.map((task) => ({ ...presentTaskPick(task, now, this.deps.sessionTitle?.(task.sessionId)), taskId: task.id })),
      { placeHolder: vscode.l10n.t('Show the output of which task?'), matchOnDescription: true, matchOnDetail: true },
    );
    if (picked) await this.show(picked.taskId);
  }

  /**
   * `vigil.killBackgroundTask`: a task id (from the webview) or a quick pick of running tasks; asks first
   * unless `confirm: false` (a surface that already asked).
   */
  async killBackgroundTask(taskId?: string, options: { confirm?: boolean } = {}): Promise<void> {
    const source = await this.deps.tasks();
    const tasks = source.list().map((t) => this.redacted(t));
    let task = taskId ? tasks.find((t) => t.id === taskId) : undefined;
    if (taskId && !task) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Vigil: task {0} is not known.', taskId));
      return;
    }
    if (!task) {
      const running = tasks.filter((t) => t.status === 'running').sort((a, b) => b.startedAt - a.startedAt);
      if (running.length === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: no background task is running.'));
        return;
      }
      const now = this.now();
      const picked = await vscode.window.showQuickPick(
        running.map((t) => ({ ...presentTaskPick(t, now, this.deps.sessionTitle?.(t.sessionId)), task: t })),
        { placeHolder: vscode.l10n.t('Kill which task (and every process it started)?'), matchOnDescription: true, matchOnDetail: true },
      );
      task = picked?.task;
      if (!task) return;
    }
    if (task.status !== 'running') {
      void vscode.window.showInformationMessage(vscode.l10n.t('Vigil: task {0} already ended ({1}).', task.id, task.status));
      return;
    }
    if (options.confirm !== false) {
      const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t('Kill task {0}: {1}?', task.id, oneLine(task.command, 80)),
        { modal: true, detail: 'Every process it started is stopped. If the agent waits for it, it is told the task was killed.' },
        vscode.l10n.t('Kill'),
      );
      if (choice !== vscode.l10n.t('Kill')) return;
    }
    const chosen = task;
    try {
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Vigil: killing task {0}…', chosen.id) }, () => source.kill(chosen.id));
      this.deps.logger.info(`[tasks] killed task ${chosen.id} on request`);
    } catch (error) {
      this.deps.logger.error(`[tasks] killing task ${chosen.id} failed: ${errorMessage(error)}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('Vigil: could not kill task {0}: {1}', chosen.id, errorMessage(error)));
    }
  }

  /**
   * The registry's snapshots carry the command as the agent gave it: redacted whole before anything shortens it
   * for a tab name, a pick row or a question, so a cut cannot leave the first part of a secret behind.
   */
  private redacted(task: TaskSnapshot): TaskSnapshot {
    return this.deps.redactor?.redactValue(task) ?? task;
  }

  private drop(mirror: TaskMirror): void {
    if (this.mirrors.get(mirror.taskId) === mirror) this.mirrors.delete(mirror.taskId);
    mirror.dispose();
  }
}
