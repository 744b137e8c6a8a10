// The recipes' `credential: 'missing'` option, checked against the agents themselves (plain ACP, no Vigil):
// without a key each agent refuses to work (`session/new` or the prompt) as it does for a person not signed in.

import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { ModelEndpoint } from '../../fakes/modelEndpoints/modelEndpoint';
import { realAgentRecipe, type RealAgentName, testApiKey } from '../../harness/realAgents';
import { realAgentBounds } from './realAgentTurn';

interface Reply {
  result?: Record<string, unknown>;
  error?: { message: string };
}

/**
 * Starts the agent, sends initialize, session/new and (if that succeeded) a prompt; returns the initialize
 * reply and the first refusal (Claude's adapter accepts session/new and refuses the prompt), then ends the agent.
 */
async function initializeAndTryATurn(command: string, args: string[], env: Record<string, string>, cwd: string): Promise<{ init: Reply; refused: Reply }> {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
  const replies = new Map<number, (r: Reply) => void>();
  const exited = new Promise<never>((_resolve, reject) => child.once('exit', (code, signal) => reject(new Error(`the agent exited (${code ?? signal}) before answering`))));
  createInterface({ input: child.stdout }).on('line', (line) => {
    let message: { id?: number; method?: string } & Reply;
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      return; // Not ACP: agents may log to stdout before they start speaking.
    }
    if (message.id !== undefined && message.method === undefined) replies.get(message.id)?.(message);
  });
  let id = 0;
  const call = (method: string, params: unknown) => {
    id += 1;
    const reply = new Promise<Reply>((resolve) => replies.set(id, resolve));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return Promise.race([reply, exited]);
  };
  try {
    const init = await call('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
    const created = await call('session/new', { cwd, mcpServers: [] });
    if (created.error) return { init, refused: created };
    return { init, refused: await call('session/prompt', { sessionId: created.result?.sessionId, prompt: [{ type: 'text', text: 'Hello?' }] }) };
  } finally {
    exited.catch(() => undefined);
    child.kill('SIGKILL');
  }
}

/** Claude's adapter 0.101 advertises no auth methods at all: it only refuses, so a client can merely say why. */
const expected: Array<{ name: RealAgentName; refusal: RegExp; methods: boolean }> = [
  { name: 'codex', refusal: /Authentication required/i, methods: true },
  { name: 'claude', refusal: /Authentication required/i, methods: false },
  { name: 'gemini', refusal: /API key is missing/i, methods: true },
];

describe('real agents without a credential', function () {
  this.timeout(realAgentBounds.testMs);

  for (const { name, refusal, methods } of expected) {
    it(`${name} refuses a turn until signed in${methods ? ', and offers ways to sign in' : ''}`, async () => {
      const endpoint = await ModelEndpoint.start({ apiKey: testApiKey });
      const recipe = await realAgentRecipe(name, { origin: endpoint.origin, credential: 'missing' });
      const cwd = await fs.mkdtemp(path.join(os.tmpdir(), 'vigil-signin-ws-'));
      try {
        const { init, refused } = await initializeAndTryATurn(recipe.agent.command, recipe.agent.args, recipe.agent.env, cwd);
        const advertised = Array.isArray(init.result?.authMethods) ? init.result.authMethods : [];
        assert.equal(advertised.length > 0, methods, `${name}'s auth methods: ${JSON.stringify(init.result?.authMethods)}`);
        assert.match(refused.error?.message ?? `no error: ${JSON.stringify(refused.result).slice(0, 200)}`, refusal);
        assert.equal(endpoint.mainRequests().length, 0, 'nothing reached the model');
      } finally {
        await recipe.dispose();
        await endpoint.close();
        await fs.rm(cwd, { recursive: true, force: true });
      }
    });
  }
});
