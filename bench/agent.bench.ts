// Agent figures: spawn → ready, idle RSS, prompt → first update against a local OpenAI-compatible
// server, `session/prompt` written → the model request's first byte at the server on a session with a
// long history (the agent's share of a wakeup), cancel → `cancelled` (p99), and per provider (OpenAI-compatible,
// Anthropic) a fresh agent's first prompt → its model request and its idle RSS after that prompt. The bundled
// agent runs as shipped, over real stdio, launched as the host launches it (`builtinLaunch`: the same command,
// node flags and environment; see AgentUnderTest). VIGIL_BENCH_ONLY=first-prompt runs only the last figures.

import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { ScriptedAnthropicServer } from '../test/fixtures/models/scriptedAnthropicServer';
import { ScriptedOpenAiServer } from '../test/fixtures/models/scriptedOpenAiServer';
import { wakeupPrefix } from '../src/shared/agentProtocol/vigilMethods';
import { AgentUnderTest } from '../test/unit/agent/agentHarness';
import { loadNote } from './support/cpuHogs';

const spawnRuns = 5;
const firstUpdateRuns = 15;
const cancelRuns = 40;
/** Prompts measured per state of the agent (warm, and idle long enough for its idle GC to have run). */
const requestRuns = 30;
/** Turns of history before the measured prompts, each with a tool call and its result. */
const historyTurns = 20;
/** Fresh agents per provider for the first-prompt figures. */
const firstPromptRuns = 3;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** CPU time (user + system) the process has used, in ms. Linux only; clock ticks are 10 ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMb(pid: number): number {
  // Linux only; the machine the bench runs on. VmRSS is in kB.
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** Wall time (performance.now) at which each request's headers reached the server: its first bytes. */
function requestStarts(server: ScriptedOpenAiServer | ScriptedAnthropicServer): number[] {
  const starts: number[] = [];
  // The fixture keeps its http.Server private; the bench listens beside its own handler.
  (server as unknown as { server: Server }).server.on('request', () => starts.push(performance.now()));
  return starts;
}

/**
 * `session/prompt` written to the agent's stdin → the first bytes of its model request at the server, on a
 * session that already holds `historyTurns` turns with tool calls (as a wakeup after real work finds it).
 * `idleMs`: how long the agent rests between prompts; past its idle GC (1.5 s) the prompt is what a wakeup
 * after a long idle pays.
 */
async function promptToRequest(server: ScriptedOpenAiServer, config: Record<string, unknown>, idleMs: number): Promise<number[]> {
  const agent = await AgentUnderTest.start(config, { files: { 'notes.txt': 'a line of notes\n'.repeat(40) } });
  const starts = requestStarts(server);
  try {
    for (let i = 0; i < historyTurns; i += 1) {
      server.reply({ kind: 'toolCalls', calls: [{ name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }], text: `Reading the notes (${i}).` });
      server.reply({ kind: 'text', chunks: [`Turn ${i}: the notes say what they say; `, 'nothing else to do.'] });
      const r = await agent.prompt(`Look at the notes again, turn ${i}.`);
      if (r.stopReason !== 'end_turn') throw new Error(`history turn ended ${r.stopReason}`);
    }
    const ms: number[] = [];
    for (let i = 0; i < requestRuns; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, idleMs));
      server.reply({ kind: 'text', chunks: ['ok'] });
      const before = starts.length;
      const t0 = performance.now();
      const done = agent.prompt(`${wakeupPrefix}${i} (npm test) exited with code 0. Its last lines:\n${'ok 1 - passes\n'.repeat(10)}`);
      await done;
      if (starts.length !== before + 1) throw new Error(`expected one model request, saw ${starts.length - before}`);
      ms.push(starts[before] - t0);
    }
    return ms;
  } finally {
    await agent.stop();
  }
}

/**
 * A fresh agent's first prompt with `provider`: `session/prompt` written → the first bytes of its model request at
 * the server (the provider's chunk and its request path load on this prompt), then the agent's RSS once it
 * settled (its idle GC runs 1.5 s after the turn).
 */
async function firstPrompt(provider: 'openai-compatible' | 'anthropic'): Promise<{ toRequest: number[]; idleRss: number[] }> {
  const toRequest: number[] = [];
  const idleRss: number[] = [];
  for (let i = 0; i < firstPromptRuns; i += 1) {
    const server = provider === 'anthropic' ? await ScriptedAnthropicServer.start() : await ScriptedOpenAiServer.start();
    const starts = requestStarts(server);
    const agent = await AgentUnderTest.start({ provider, baseUrl: server.url, model: provider === 'anthropic' ? 'claude-bench' : 'bench', idleTimeoutMs: 60_000 }, { apiKey: 'sk-bench' });
    try {
      server.reply({ kind: 'text', chunks: ['hello', ' there'] });
      const t0 = performance.now();
      const r = await agent.prompt('hi');
      if (r.stopReason !== 'end_turn' || starts.length !== 1) throw new Error(`${provider}: the first prompt ended ${r.stopReason} after ${starts.length} model requests`);
      toRequest.push(starts[0] - t0);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      idleRss.push(rssMb(agent.pid!));
    } finally {
      await agent.stop();
      await server.close();
    }
  }
  return { toRequest, idleRss };
}

async function firstPromptFigures(): Promise<void> {
  for (const provider of ['openai-compatible', 'anthropic'] as const) {
    const { toRequest, idleRss } = await firstPrompt(provider);
    const each = (values: number[]) => values.map((v) => v.toFixed(1)).join(', ');
    console.log(`${provider}: a fresh agent's first session/prompt to its model request at the server (${firstPromptRuns} agents): ${each(toRequest)} ms (${loadNote()})`);
    console.log(`${provider}: idle agent RSS after one prompt (${firstPromptRuns} agents): ${each(idleRss)} MB (${loadNote()})`);
  }
}

async function main(): Promise<void> {
  if (process.env.VIGIL_BENCH_ONLY === 'first-prompt') return firstPromptFigures();
  const server = await ScriptedOpenAiServer.start();
  const config = { provider: 'openai-compatible', baseUrl: server.url, model: 'bench', idleTimeoutMs: 60_000 };
  try {
    const spawnMs: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < spawnRuns; i += 1) {
      const t0 = performance.now();
      const agent = await AgentUnderTest.start(config);
      spawnMs.push(performance.now() - t0);
      rss.push(rssMb(agent.pid!));
      await agent.stop();
    }

    const agent = await AgentUnderTest.start(config);
    const firstUpdate: number[] = [];
    const cpuBefore = cpuMs(agent.pid!);
    for (let i = 0; i < firstUpdateRuns; i += 1) {
      server.reply({ kind: 'text', chunks: ['hello', ' there'] });
      const seen = agent.updates.length;
      const t0 = performance.now();
      const done = agent.prompt('hi');
      await agent.waitForUpdate((u) => agent.updates.indexOf(u) >= seen && u.sessionUpdate === 'agent_message_chunk', 'first update');
      firstUpdate.push(performance.now() - t0);
      await done;
    }
    const cpuPerPrompt = (cpuMs(agent.pid!) - cpuBefore) / firstUpdateRuns;
    // Idle RSS after real use (SDKs loaded, one session), once the agent has settled (it collects
    // garbage 1.5 s after its last turn): what an idle session costs.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const idleRss = rssMb(agent.pid!);

    const cancelMs: number[] = [];
    for (let i = 0; i < cancelRuns; i += 1) {
      server.reply({ kind: 'hang', afterChunks: ['…'] });
      const seen = agent.updates.length;
      const pending = agent.prompt('hang');
      await agent.waitForUpdate((u) => agent.updates.indexOf(u) >= seen && u.sessionUpdate === 'agent_message_chunk', 'hang chunk');
      const t0 = performance.now();
      await agent.cancel();
      const r = await pending;
      if (r.stopReason !== 'cancelled') throw new Error(`cancel answered ${r.stopReason}`);
      cancelMs.push(performance.now() - t0);
    }
    await agent.stop();

    const warm = await promptToRequest(server, config, 200);
    const idle = await promptToRequest(server, config, 2_000);

    console.log(`agent spawn to ready, initialize + session/new answered (median of ${spawnRuns}): ${percentile(spawnMs, 50).toFixed(0)} ms (${loadNote()})`);
    console.log(`agent RSS right after initialize (median): ${percentile(rss, 50).toFixed(1)} MB (${loadNote()})`);
    console.log(`idle agent RSS after use: ${idleRss.toFixed(1)} MB (${loadNote()})`);
    console.log(`prompt to first update, local server (median of ${firstUpdateRuns}): ${percentile(firstUpdate, 50).toFixed(1)} ms (${loadNote()})`);
    console.log(`agent CPU per prompt, two-chunk answer (mean of ${firstUpdateRuns}): ${cpuPerPrompt.toFixed(1)} ms (${loadNote()})`);
    console.log(`session/prompt written to model request at the server, ${historyTurns}-turn history, 0.2 s after the last turn (p50 / p99 of ${requestRuns}): ${percentile(warm, 50).toFixed(1)} / ${percentile(warm, 99).toFixed(1)} ms (${loadNote()})`);
    console.log(`session/prompt written to model request at the server, ${historyTurns}-turn history, 2 s idle, after the idle GC (p50 / p99 of ${requestRuns}): ${percentile(idle, 50).toFixed(1)} / ${percentile(idle, 99).toFixed(1)} ms (${loadNote()})`);
    console.log(`cancel to cancelled (p99 of ${cancelRuns}): ${percentile(cancelMs, 99).toFixed(1)} ms (${loadNote()})`);
    console.log(`cancel to cancelled (median): ${percentile(cancelMs, 50).toFixed(1)} ms (${loadNote()})`);
  } finally {
    await server.close();
  }
  await firstPromptFigures();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
