// The whole path in the real workbench, defaults on (figures, not assertions): code-server + Chromium with the
// packaged VSIX, a third-party agent through Vigil's MCP task server that logs when each prompt arrives, on a
// 3-file and a 20,000-file workspace, checkpoints on and off side by side in one run (alternated). Per figure one
// line: the median on and off, their difference, and the load. Needs `npm run package` first.
// VIGIL_BENCH_ROUNDS (default 5) samples per figure and start; VIGIL_BENCH_SIZES=3,20000 the workspaces;
// VIGIL_BENCH_ORDER=on,off starts the checkpoints-on workbench first; VIGIL_BENCH_STARTS (default 1) pairs of
// workbench starts per workspace, alternated, so that the once-per-start figures (first turn, first paint,
// activation) get more than one sample.

import { cpSync, existsSync, mkdtempSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from '../test/harness/codeServer';
import { vsixPath } from '../test/harness/e2eSession';
import { bigWorkspace } from './support/bigWorkspace';
import { workbenchRound, type RoundFigures, type Sample } from './support/workbenchRound';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))] ?? NaN;
const loads = (samples: Sample[]) => {
  const l = samples.map((s) => s.load);
  return `${Math.min(...l).toFixed(1)}–${Math.max(...l).toFixed(1)}`;
};

function line(name: string, on: Sample[], off: Sample[]): void {
  if (on.length === 0 || off.length === 0) {
    console.log(`${name}: no samples (on ${on.length}, off ${off.length})`);
    return;
  }
  const [m1, m0] = [median(on.map((s) => s.ms)), median(off.map((s) => s.ms))];
  console.log(`${name}: checkpoints on median ${m1.toFixed(0)} ms (p99 ${p99(on.map((s) => s.ms)).toFixed(0)}, n ${on.length}), off ${m0.toFixed(0)} ms (p99 ${p99(off.map((s) => s.ms)).toFixed(0)}, n ${off.length}), on − off ${(m1 - m0).toFixed(0)} ms (load ${loads([...on, ...off])} on ${os.cpus().length} cores)`);
}

function workspaceOf(files: number): string {
  if (files > 10) return bigWorkspace(files);
  const dir = mkdtempSync(path.join(repoRoot, '.vscode-test', 'ws-bench-'));
  cpSync(path.join(repoRoot, 'sample'), dir, { recursive: true });
  return dir;
}

async function main(): Promise<void> {
  if (!existsSync(vsixPath)) throw new Error(`${vsixPath} is missing: run "npm run package" first`);
  const rounds = Number(process.env.VIGIL_BENCH_ROUNDS ?? 5);
  const starts = Number(process.env.VIGIL_BENCH_STARTS ?? 1);
  const sizes = (process.env.VIGIL_BENCH_SIZES ?? '3,20000').split(',').map(Number);
  for (const files of sizes) {
    const workspace = workspaceOf(files);
    const label = files > 10 ? `${files.toLocaleString('en')}-file workspace` : `${files}-file workspace`;
    const got: Record<'on' | 'off', RoundFigures[]> = { on: [], off: [] };
    // Off first by default (the on-run cannot profit from a cache the off-run warmed less); VIGIL_BENCH_ORDER=on,off flips it.
    const order = process.env.VIGIL_BENCH_ORDER === 'on,off' ? (['on', 'off'] as const) : (['off', 'on'] as const);
    for (let start = 0; start < starts; start += 1) {
      for (const mode of order) got[mode].push(await workbenchRound({ workspace, checkpoints: mode === 'on', rounds, paint: files <= 10 }));
    }
    const all = (mode: 'on' | 'off', pick: (r: RoundFigures) => Sample[]) => got[mode].flatMap(pick);
    const both = (name: string, pick: (r: RoundFigures) => Sample[]) => line(name, all('on', pick), all('off', pick));
    both(`Enter → prompt at the agent, first turn after the window opened, ${label}`, (r) => [r.firstTurn]);
    for (const note of new Set(got.on.map((r) => r.firstCheckpointNote).filter(Boolean))) console.log(`  (a first turn's checkpoint, checkpoints on: "${note!.replace(/\s+/g, ' ').slice(0, 160)}")`);
    both(`Enter → prompt at the agent, a later turn, ${label}`, (r) => r.laterTurns);
    both(`task exit → wakeup session/prompt at the agent (MCP task server, idle session), ${label}`, (r) => r.wakeups);
    both(`turn end → deferred (teardown-drain) wakeup at the agent (MCP task server), ${label}`, (r) => r.deferred);
    if (files <= 10) both(`first paint of a 10,000-message session (snapshot received → tail painted), ${label}`, (r) => (r.firstPaint ? [r.firstPaint] : []));
    const fmt = (mode: 'on' | 'off') => {
      const a = got[mode].flatMap((r) => (r.activation ? [r.activation] : []));
      if (a.length === 0) return 'no sample';
      const m = (f: (x: (typeof a)[number]) => number) => median(a.map(f)).toFixed(1);
      return `${m((x) => x.loadMs + x.activateMs)} ms (load ${m((x) => x.loadMs)} + activate() ${m((x) => x.activateMs)}; median of ${a.length})`;
    };
    console.log(`activation as VS Code counts it, ${label}: checkpoints on ${fmt('on')}, off ${fmt('off')} (load ${os.loadavg()[0]!.toFixed(1)})`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
