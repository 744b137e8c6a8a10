// Agent figures: spawn → ready, idle RSS, prompt → first update against a local OpenAI-compatible
// server, and cancel → `cancelled` (p99). The bundled agent runs as shipped, over real stdio, launched as the
// host launches it (`builtinLaunch`: the same command, node flags and environment; see AgentUnderTest).

import { readFileSync } from 'node:fs';
import { ScriptedOpenAiServer } from '../test/fixtures/models/scriptedOpenAiServer';
import { AgentUnderTest } from '../test/unit/agent/agentHarness';
import { loadNote } from './support/cpuHogs';

const spawnRuns = 5;
const firstUpdateRuns = 15;
const cancelRuns = 40;

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

async function main(): Promise<void> {
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

    console.log(`agent spawn to ready, initialize + session/new answered (median of ${spawnRuns}): ${percentile(spawnMs, 50).toFixed(0)} ms (${loadNote()})`);
    console.log(`agent RSS right after initialize (median): ${percentile(rss, 50).toFixed(1)} MB (${loadNote()})`);
    console.log(`idle agent RSS after use: ${idleRss.toFixed(1)} MB (${loadNote()})`);
    console.log(`prompt to first update, local server (median of ${firstUpdateRuns}): ${percentile(firstUpdate, 50).toFixed(1)} ms (${loadNote()})`);
    console.log(`agent CPU per prompt, two-chunk answer (mean of ${firstUpdateRuns}): ${cpuPerPrompt.toFixed(1)} ms (${loadNote()})`);
    console.log(`cancel to cancelled (p99 of ${cancelRuns}): ${percentile(cancelMs, 99).toFixed(1)} ms (${loadNote()})`);
    console.log(`cancel to cancelled (median): ${percentile(cancelMs, 50).toFixed(1)} ms (${loadNote()})`);
  } finally {
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
