// An agent process started for one request and stopped right after (`initialize` for the sign-in methods,
// `logout`, `session/delete` of a session with no live process), and the sign-in step every start makes.

import { errorMessage, VigilError } from '../common/errors';
import type { Logger } from '../ports/logger';
import type { AcpConnection } from './acpConnection';
import { defaultInitializeTimeoutMs } from './acpHandleDeps';
import { authInfoOf } from './agentAuth';
import type { LaunchSpec } from './agentLaunch';
import { spawnAgent, type SpawnContext } from './agentSpawn';
import { explainStartFailure, type KnownAuth } from './promptFailure';

/**
 * Learns the agent's auth methods from `initialize`, then authenticates with the method the person
 * just chose, or with the env-var method stored for this agent (its variables are in this process's
 * environment). A stored method that fails is only logged: `session/new` then says what is missing.
 * Returns what `initialize` said about signing in (set before any `authenticate`, which may throw).
 */
export async function authenticateAtStart(connection: AcpConnection, spec: LaunchSpec, chosen: string | undefined, log: Logger, learned: (auth: KnownAuth) => void): Promise<void> {
  const info = authInfoOf(spec.command, spec.args, connection.initializeResponse);
  learned({ ...info, spec });
  const advertised = (id: string | undefined) => id !== undefined && info.methods.some((m) => m.id === id && m.kind !== 'terminal');
  if (chosen !== undefined) {
    if (!advertised(chosen)) throw new VigilError('INVALID_INPUT', `${spec.label} no longer offers that sign-in method; choose again.`);
    log.info(`${spec.label}: authenticating with "${chosen}"`);
    await connection.authenticate(chosen);
    return;
  }
  if (!advertised(spec.authMethodId)) return;
  try {
    await connection.authenticate(spec.authMethodId!);
  } catch (error) {
    log.warn(`${spec.label}: authenticate with the stored method "${spec.authMethodId}" failed: ${errorMessage(error)}`);
  }
}

/**
 * Runs `fn` on a process started just for it: initialized (and, with `authenticate`, signed in with the
 * stored method, which some agents such as Codex want before session requests), then stopped.
 */
export async function withOneOffAgent<T>(
  c: SpawnContext,
  spec: LaunchSpec,
  o: { authenticate: boolean; learned(auth: KnownAuth): void; auth(): KnownAuth | undefined; signal?: AbortSignal },
  fn: (connection: AcpConnection) => Promise<T>,
): Promise<T> {
  const { proc, connection, terminals } = await spawnAgent(c, spec, false);
  let killed = false;
  const stop = () => {
    killed = true;
    void proc.kill();
  };
  o.signal?.addEventListener('abort', stop, { once: true });
  try {
    await connection.initialize(c.deps.initializeTimeoutMs ?? defaultInitializeTimeoutMs, spec.label);
    if (o.authenticate) await authenticateAtStart(connection, spec, undefined, c.deps.log, o.learned);
    else o.learned({ ...authInfoOf(spec.command, spec.args, connection.initializeResponse), spec });
    return await fn(connection);
  } catch (error) {
    throw await explainStartFailure(error, proc, spec, killed, o.auth());
  } finally {
    o.signal?.removeEventListener('abort', stop);
    await proc.kill();
    connection.close();
    void terminals.agentGone();
  }
}
