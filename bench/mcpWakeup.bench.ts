// Task exit → wakeup prompt at the agent, through Vigil's MCP task server: the composed services, a
// third-party agent process (test/fixtures/agents/mcpTaskAgent) that starts `date +%s%N` with
// start_background_command and ends its turn, and the bundled task server program (dist/taskServer.js).
// The command prints its own exit time as its last act; the agent notes when the wakeup prompt arrives.

import { existsSync, promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { customLaunch } from '../src/extension/core/acp/agentLaunch';
import { SessionSecrets } from '../src/extension/core/mcp/sessionSecrets';
import { ApprovalBroker } from '../src/extension/presentation/approvalBroker';
import { VigilServices } from '../src/extension/services';
import { percentile, print } from './support/cooperativeAgent';

const repoRoot = path.resolve(__dirname, '..', '..');
const program = path.join(repoRoot, 'dist', 'taskServer.js');
const agentScript = path.resolve(__dirname, '../test/fixtures/agents/mcpTaskAgent.js');
const ROUNDS = 30;

async function main(): Promise<void> {
  if (!existsSync(program)) throw new Error(`${program} is missing: run node scripts/build.mjs`);
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-bench-mcp-'));
  const workspace = path.join(root, 'workspace');
  const agentLog = path.join(root, 'agent.log');
  await fs.mkdir(workspace);
  const services = await VigilServices.start({
    storageRoot: path.join(root, 'storage'),
    windowId: 'bench',
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    windowFolders: () => [workspace],
    folderlessCwd: () => workspace,
    liveness: () => ({ enabled: true, timeoutMs: 60_000, toolTimeoutMs: 120_000, graceMs: 5_000 }),
    maxWakeupsPerTurn: () => 5,
    outputByteLimit: () => 64 * 1024,
    launchFor: async () => customLaunch({ command: process.execPath, args: [agentScript], env: { MCP_AGENT_LOG: agentLog } }),
    policy: { isTrusted: () => true, mode: () => 'allowAll' },
    prompter: new ApprovalBroker(),
    taskServer: { identity: { name: 'bench', secrets: SessionSecrets.generate() }, program: { command: process.execPath, args: [program] }, offer: () => true },
  });
  try {
    const { id: sessionId } = await services.supervisor.sessions.create('bench');
    const latencies: number[] = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      const wakeupEnded = new Promise<void>((resolve) => {
        const off = services.supervisor.subscribe((e) => {
          if (e.type === 'turnEnded' && e.ended.source === 'wakeup') {
            off();
            resolve();
          }
        });
      });
      // The short sleep puts the exit after the turn ended: the idle path, as when an agent ends its turn to wait.
      const started = await services.supervisor.startTurn(sessionId, `bg sleep 0.1; echo round-${i}; date +%s%N`, { source: 'user' });
      if (started.kind !== 'started') throw new Error(`turn not started: ${started.kind}`);
      await started.ended;
      await wakeupEnded;
      const lines = readFileSync(agentLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { at?: number; text?: string });
      const wakeup = lines.find((l) => l.text?.includes(`round-${i}\n`) && l.text.startsWith('[IMPORTANT'));
      const exitNs = /round-\d+\n(\d{19})/.exec(wakeup?.text ?? '')?.[1];
      if (!wakeup?.at || !exitNs) throw new Error(`round ${i}: no wakeup with the exit time at the agent`);
      latencies.push(wakeup.at - Number(BigInt(exitNs) / 1000n) / 1000);
    }
    print('task exit to wakeup prompt at the agent, through MCP p50', percentile(latencies, 50), 'ms');
    print('task exit to wakeup prompt at the agent, through MCP p99', percentile(latencies, 99), 'ms');
  } finally {
    services.dispose();
    await fs.rm(root, { recursive: true, force: true, maxRetries: 5 });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
