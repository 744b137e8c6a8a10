// Opens task registries over a temporary storage root with a recording completion sink; gates for real child processes.

import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { TaskRegistry, type TaskRegistryOptions } from '../../src/extension/core/tasks/taskRegistry';
import type { TaskCompletion, TaskEvent } from '../../src/extension/core/tasks/taskTypes';
import { tempStorageRoot } from './wakeupHarness';

export interface OpenedRegistry {
  registry: TaskRegistry;
  completions: TaskCompletion[];
  events: TaskEvent[];
}

export async function openRegistry(root: string, options: Partial<TaskRegistryOptions> = {}): Promise<OpenedRegistry> {
  const completions: TaskCompletion[] = [];
  const workspace = path.join(root, 'workspace');
  await fs.mkdir(workspace, { recursive: true });
  const registry = await TaskRegistry.open({
    storageRoot: root,
    workspaceFolder: () => workspace,
    shell: '/bin/sh',
    killGraceMs: 500,
    pollIntervalMs: 200,
    onCompletion: async (c) => {
      completions.push(c);
    },
    ...options,
  });
  const events: TaskEvent[] = [];
  // Output chunks are not kept: a test of bounded memory must not hold them itself.
  registry.subscribe((e) => {
    if (e.type !== 'output') events.push(e);
  });
  return { registry, completions, events };
}

/**
 * Registries over a fresh storage root per test (call inside a `describe`): after each test its registries are
 * closed, with their running tasks killed, and the root is removed.
 */
export function registriesPerTest(prefix: string): { readonly root: string; open(options?: Partial<TaskRegistryOptions>): Promise<OpenedRegistry> } {
  let root = '';
  let opened: OpenedRegistry[] = [];
  beforeEach(async () => {
    root = await tempStorageRoot(prefix);
  });
  afterEach(async () => {
    for (const o of opened) {
      for (const t of o.registry.list()) if (t.status === 'running') await o.registry.kill(t.id).catch(() => undefined);
      await o.registry.close();
    }
    opened = [];
    await fs.rm(root, { recursive: true, force: true });
  });
  return {
    get root() {
      return root;
    },
    async open(options = {}) {
      const o = await openRegistry(root, options);
      opened.push(o);
      return o;
    },
  };
}

/** A named pipe the child blocks on (`cat fifo`) until the test writes to it: a gate, not a timer. */
export function makeFifo(dir: string, name = 'gate'): string {
  const file = path.join(dir, name);
  execFileSync('mkfifo', [file]);
  return file;
}

export async function openGate(fifo: string): Promise<void> {
  await fs.writeFile(fifo, 'go\n');
}

/** Resolves once the task's output contains `text`. */
export function waitForOutput(opened: OpenedRegistry, taskId: string, text: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = async () => (await opened.registry.get(taskId))?.output.includes(text) ?? false;
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${JSON.stringify(text)} in ${taskId}`));
    }, timeoutMs);
    const off = opened.registry.subscribe((e) => {
      if (e.type !== 'output' || e.taskId !== taskId) return;
      void check().then((ok) => {
        if (!ok) return;
        clearTimeout(timer);
        off();
        resolve();
      });
    });
    void check().then((ok) => {
      if (!ok) return;
      clearTimeout(timer);
      off();
      resolve();
    });
  });
}

/** Resolves when a file appears in `dir` (watched, with a timeout). */
export function waitForFile(file: string, timeoutMs = 10_000): Promise<void> {
  return waitForFileContent(file, () => true, timeoutMs);
}

/** Resolves when `file` exists and `accept` holds for its text: probed at every change of its folder (atomic renames included). */
export async function waitForFileContent(file: string, accept: (text: string) => boolean, timeoutMs = 10_000): Promise<void> {
  const { watch } = await import('node:fs');
  await new Promise<void>((resolve, reject) => {
    let done = false;
    const watcher = watch(path.dirname(file), () => void probe());
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`timed out waiting for ${file}`));
    }, timeoutMs);
    const probe = async () => {
      let text: string;
      try {
        text = await fs.readFile(file, 'utf8');
      } catch {
        return;
      }
      let ok = false;
      try {
        ok = accept(text);
      } catch {
        // Not in the wanted state yet (e.g. not JSON): wait for the next change.
      }
      if (done || !ok) return;
      done = true;
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
    void probe();
  });
}

export function readPid(file: string): number {
  return Number(execFileSync('cat', [file]).toString().trim());
}
