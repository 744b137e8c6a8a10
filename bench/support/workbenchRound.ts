// One start of the real workbench (code-server + Chromium, the packaged VSIX) for the workbench bench, with a
// third-party agent (`mcpTaskAgent`, background commands through Vigil's MCP task server) that logs when each
// prompt arrives: what a person waits for on the whole path, with checkpoints on or off.

import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CodeServer, repoRoot } from '../../test/harness/codeServer';
import { vsixPath } from '../../test/harness/e2eSession';
import { vigilStorage } from '../../test/harness/runFiles';
import { seedLongSession } from '../../test/harness/seedSession';
import { SessionView, uiTimeout } from '../../test/harness/sessionView';
import { Workbench } from '../../test/harness/workbench';

export interface Sample {
  ms: number;
  load: number;
}

export interface RoundFigures {
  activation?: { loadMs: number; activateMs: number };
  firstTurn: Sample;
  laterTurns: Sample[];
  wakeups: Sample[];
  deferred: Sample[];
  firstPaint?: Sample;
  /** What the first turn's checkpoint record said when it had none. */
  firstCheckpointNote?: string;
}

export interface RoundOptions {
  workspace: string;
  checkpoints: boolean;
  rounds: number;
  paint: boolean;
}

interface LogLine {
  at?: number;
  text?: string;
  ended?: number;
  turnOf?: string;
}

const load = () => os.loadavg()[0]!;

export async function workbenchRound(o: RoundOptions): Promise<RoundFigures> {
  const tmp = path.join(os.tmpdir(), `vigil-bench-wb-${process.pid}-${Date.now()}`);
  const agentLog = `${tmp}-agent.jsonl`;
  const activationFile = `${tmp}-activation.jsonl`;
  writeFileSync(agentLog, '');
  const agent = { command: process.execPath, args: [path.join(repoRoot, 'out', 'test', 'fixtures', 'agents', 'mcpTaskAgent.js')] };
  const server = await CodeServer.start({
    workspace: o.workspace,
    vsix: vsixPath,
    name: `bench-${o.checkpoints ? 'on' : 'off'}`,
    settings: { 'vigil.model.provider': 'demo', 'vigil.agent': agent, 'vigil.approvals.policy': 'allowAll', 'vigil.checkpoints.enabled': o.checkpoints },
    env: {
      MCP_AGENT_LOG: agentLog,
      VIGIL_BENCH_ACTIVATION_FILE: activationFile,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${path.join(repoRoot, 'out', 'bench', 'support', 'activationTimer.js')}`.trim(),
    },
  });
  let workbench: Workbench | undefined;
  try {
    workbench = await Workbench.open(server);
    await workbench.statusItem().waitFor({ timeout: 90_000 });
    const view = new SessionView(workbench);
    await workbench.runCommand('Vigil: New Session');
    await view.waitPainted();
    await view.waitAgent('mcpTaskAgent');
    const prompts = () => readFileSync(agentLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as LogLine);
    const turn = async (text: string): Promise<Sample> => {
      const enter = await press(view, text);
      const got = await waitLine(prompts, (l) => l.text === text);
      await view.waitPhase('idle');
      return { ms: got.at! - enter, load: load() };
    };
    const figures: RoundFigures = { firstTurn: await turn('hello first'), laterTurns: [], wakeups: [], deferred: [] };
    figures.firstCheckpointNote = await view.locator('.entry.checkpoint').last().innerText({ timeout: 2_000 }).catch(() => undefined);
    for (let r = 0; r < o.rounds; r += 1) figures.laterTurns.push(await turn(`hello ${r}`));
    for (let r = 0; r < o.rounds; r += 1) {
      const marker = `exit-${r}-${Date.now()}`;
      await press(view, `bg sleep 0.3; echo ${marker} $(date +%s%N)`);
      const woken = await waitLine(prompts, (l) => (l.text ?? '').startsWith('[IMPORTANT: Background task') && l.text!.includes(marker));
      await view.waitPhase('idle');
      figures.wakeups.push({ ms: woken.at! - exitTime(woken.text!, marker), load: load() });
    }
    for (let r = 0; r < o.rounds; r += 1) {
      const marker = `wait-${r}-${Date.now()}`;
      await press(view, `bg-wait sleep 0.3; echo ${marker}`);
      const woken = await waitLine(prompts, (l) => (l.text ?? '').startsWith('[IMPORTANT: Background task') && l.text!.includes(marker));
      const ended = prompts().find((l) => l.ended !== undefined && (l.turnOf ?? '').startsWith('bg-wait') && (l.turnOf ?? '').includes(marker));
      await view.waitPhase('idle');
      if (ended) figures.deferred.push({ ms: woken.at! - ended.ended!, load: load() });
    }
    if (o.paint) figures.firstPaint = await firstPaint(server, workbench, view);
    if (existsSync(activationFile)) figures.activation = JSON.parse(readFileSync(activationFile, 'utf8').split('\n')[0]!) as RoundFigures['activation'];
    return figures;
  } finally {
    await workbench?.close().catch(() => undefined);
    await server.stop();
    rmSync(agentLog, { force: true });
    rmSync(activationFile, { force: true });
  }
}

/** Types the text, then presses Enter, returning the wall time of the key press as the page saw it. */
async function press(view: SessionView, text: string): Promise<number> {
  const input = view.locator('#prompt-input');
  await view.locator('#app[data-phase="idle"]').waitFor({ timeout: uiTimeout });
  await input.fill(text);
  await input.evaluate((el) => {
    el.addEventListener('keydown', (e) => {
      if ((e as KeyboardEvent).key === 'Enter') (window as unknown as { __enterAt: number }).__enterAt = performance.timeOrigin + performance.now();
    }, { capture: true, once: true });
  });
  await input.press('Enter');
  return input.evaluate(() => (window as unknown as { __enterAt: number }).__enterAt);
}

async function waitLine(lines: () => LogLine[], match: (l: LogLine) => boolean): Promise<LogLine> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const found = lines().find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error('the agent never got the prompt');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The command's last act was `date +%s%N`: its exit follows within a fork's time. */
function exitTime(text: string, marker: string): number {
  const ns = new RegExp(`${marker} (\\d{19})`).exec(text)?.[1];
  if (!ns) throw new Error(`no exit time in the wakeup: ${text.slice(0, 300)}`);
  return Number(BigInt(ns) / 1_000n) / 1_000;
}

async function firstPaint(server: CodeServer, workbench: Workbench, view: SessionView): Promise<Sample> {
  const seeded = seedLongSession(vigilStorage(server), 'Ten thousand messages', 10_000);
  const frame = await view.frame();
  await frame.evaluate(() => performance.clearMarks());
  await workbench.runCommand('Vigil: Open Session…');
  await workbench.pickQuickItem(seeded.title);
  await view.locator(`#app[data-session-id="${seeded.id}"]`).waitFor({ timeout: uiTimeout });
  const deadline = Date.now() + uiTimeout;
  for (;;) {
    const ms = await frame.evaluate(() => {
      const received = performance.getEntriesByName('vigil:snapshot-received').at(-1);
      const painted = performance.getEntriesByName('vigil:tail-painted').at(-1);
      return received && painted && painted.startTime >= received.startTime ? painted.startTime - received.startTime : undefined;
    });
    if (ms !== undefined) return { ms, load: load() };
    if (Date.now() > deadline) throw new Error('the view never marked vigil:tail-painted');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
