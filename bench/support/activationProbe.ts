// Loaded as the workbench's extension test entry: activates Vigil and records what it measured.

import { writeFileSync } from 'node:fs';
import * as vscode from 'vscode';

export async function run(): Promise<void> {
  const extension = vscode.extensions.getExtension('vigil.vigil');
  if (!extension) throw new Error('vigil.vigil is not installed');
  const api = (await extension.activate()) as { activationMs: number; loadAndActivateMs: number };
  writeFileSync(process.env.VIGIL_BENCH_FILE ?? '/dev/null', JSON.stringify({ activationMs: api.activationMs, loadAndActivateMs: api.loadAndActivateMs }));
}
