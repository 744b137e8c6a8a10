// What "Stop means stop" costs a turn: the process snapshot before each prompt, one sample of the agent's
// tree (taken each second and on tool call events while a prompt runs), and finding the leftovers at a
// stopped turn's end; on this host as it is, then with 300 more processes running.

import { spawn, type ChildProcess } from 'node:child_process';
import * as readline from 'node:readline';
import { readProcessTable } from '../src/extension/core/supervisor/processTable';
import { TurnProcessWatch } from '../src/extension/core/supervisor/turnProcesses';
import { percentile, print } from './support/cooperativeAgent';

const runs = 40;

/** Wall and CPU milliseconds per call: on a shared, loaded machine the wall figure is mostly waiting for a core. */
async function timed(fn: () => Promise<unknown>): Promise<{ wall: number[]; cpu: number[] }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { wall, cpu };
}

function report(name: string, ms: { wall: number[]; cpu: number[] }): void {
  print(`${name} p50`, percentile(ms.wall, 50), 'ms');
  print(`${name} p99`, percentile(ms.wall, 99), 'ms');
  print(`${name} CPU p50`, percentile(ms.cpu, 50), 'ms');
}

async function measure(label: string): Promise<void> {
  const hostProcesses = (await readProcessTable()).size;
  print(`${label}: processes on the host`, hostProcesses, '');
  // An "agent" with ten children of its own, started after the snapshot.
  const agent = spawn(process.execPath, ['-e', "const {spawn}=require('node:child_process');process.stdin.once('data',()=>{for(let i=0;i<10;i++)spawn('sleep',['300'],{detached:true,stdio:'ignore'});console.log('ok')});console.log('ready');setInterval(()=>{},1e9)"], {
    env: { ...process.env, BENCH_MARK: 'x' },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const lines = readline.createInterface({ input: agent.stdout! });
  const nextLine = () => new Promise((resolve) => lines.once('line', resolve));
  try {
    // Measured once the agent has started (its start-up would otherwise compete for the CPU).
    await nextLine();
    report(`${label}: snapshot at prompt start`, await timed(() => TurnProcessWatch.begin({ agentPid: agent.pid! })));
    const watch = await TurnProcessWatch.begin({ agentPid: agent.pid!, marker: { name: 'BENCH_MARK', value: 'x' } });
    agent.stdin!.write('go\n');
    await nextLine();
    report(`${label}: one sample of the agent's tree`, await timed(() => watch.sample()));
    const found = await watch.leftovers([]);
    print(`${label}: leftovers found`, found.length, '');
    report(`${label}: finding the leftovers at the end`, await timed(() => watch.leftovers([])));
    for (const p of found) process.kill(p.pid, 'SIGKILL');
  } finally {
    agent.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  await measure('as is');
  const crowd: ChildProcess[] = [];
  for (let i = 0; i < 300; i += 1) crowd.push(spawn('sleep', ['300'], { stdio: 'ignore' }));
  try {
    await measure('+300 processes');
  } finally {
    for (const c of crowd) c.kill('SIGKILL');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
