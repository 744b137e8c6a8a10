// Loaded as the workbench's extension test entry: activates Vigil and records what it measured.
//
// VS Code's own activation figure ("Activation: N ms" in Developer: Show Running Extensions) is
// codeLoadingTime + activateCallTime: the require of the extension's main module, then the synchronous
// call of activate(). It leaves out the wait between the two, in which the host readies the extension's
// context (global and workspace state, an RPC to the window). This probe reports those two parts: the
// require of dist/extension.js (read, compile, evaluate), timed by bundleLoadHook.ts around Node's `.js`
// loader (preloaded into the extension host, since Vigil activates on start-up finished, often before
// this probe runs), and activate() by Vigil's own marks.

import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

export interface ActivationSample {
  /** The require of dist/extension.js: read, compile and evaluate (Node's `.js` loader, timed around). */
  loadMs: number;
  /** From the bundle's first line to its last: the evaluation part of `loadMs`. */
  evaluateMs: number;
  /** The synchronous activate() call. */
  activateMs: number;
  /** From the bundle's first line to the end of activate(), the host's context wait included. */
  bannerToActivatedMs: number;
  /** VS Code's own marks around the require (whole milliseconds), to check `loadMs` against. */
  vscodeLoadMs: number | undefined;
}

export async function run(): Promise<void> {
  const extension = vscode.extensions.getExtension('vigil.vigil');
  if (!extension) throw new Error('vigil.vigil is not installed');
  const api = (await extension.activate()) as { activationMs: number; loadAndActivateMs: number; evaluationMs: number };
  const loadMs = (globalThis as { __vigilBenchLoadMs?: number }).__vigilBenchLoadMs;
  if (loadMs === undefined) throw new Error(`the load of ${path.join(extension.extensionPath, 'dist', 'extension.js')} was not timed: is bundleLoadHook.js preloaded with VIGIL_BENCH_BUNDLE naming it?`);
  const sample: ActivationSample = {
    loadMs,
    evaluateMs: api.evaluationMs,
    activateMs: api.activationMs,
    bannerToActivatedMs: api.loadAndActivateMs,
    vscodeLoadMs: vscodeMarks(extension.id),
  };
  writeFileSync(process.env.VIGIL_BENCH_FILE ?? '/dev/null', JSON.stringify(sample));
}

/** The host's performance marks around loading the extension's code, if this VS Code sets them. */
function vscodeMarks(id: string): number | undefined {
  const marks = (globalThis as { MonacoPerformanceMarks?: { getMarks(): { name: string; startTime: number }[] } }).MonacoPerformanceMarks?.getMarks() ?? [];
  const at = (name: string) => marks.find((m) => m.name === name)?.startTime;
  const will = at(`code/extHost/willLoadExtensionCode/${id}`);
  const did = at(`code/extHost/didLoadExtensionCode/${id}`);
  return will !== undefined && did !== undefined ? did - will : undefined;
}
