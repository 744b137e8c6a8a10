// Why an agent's start or prompt failed, as the supervisor needs it (an AgentFailure in the error's cause)
// and as the person needs it (the exit and last stderr lines, a sign-in, or the agent's own words).

import { RequestError } from '@agentclientprotocol/sdk';
import { promptErrorData } from '../../../shared/agentProtocol/vigilMethods';
import { timeoutSignal, untilAborted } from '../../../shared/untilAborted';
import { errorMessage, isVigilError } from '../common/errors';
import type { AgentFailure } from '../ports/agentHandle';
import { isAuthError, type AgentAuthInfo } from './agentAuth';
import type { LaunchSpec } from './agentLaunch';
import type { AgentChannel } from './agentProcess';
import { authFailure, exitFailure } from './agentStartFailure';

/** How long a closed connection waits for the process's exit status, so a crash is reported as one. */
const exitReportMs = 500;

/** What the agent's last `initialize` said about signing in, and who the agent was. */
export type KnownAuth = Omit<AgentAuthInfo, 'identity' | 'builtin'> & { spec: LaunchSpec };

/**
 * Why the start failed, as the person needs it: the process exited (code, signal, last stderr
 * lines), or the agent wants a sign-in (ACP auth_required or its own words), or the error as it was.
 */
export async function explainStartFailure(error: unknown, proc: AgentChannel, spec: LaunchSpec, killed: boolean, auth: KnownAuth | undefined): Promise<unknown> {
  if (hasFailure(error) || isVigilError(error, 'CANCELLED')) return error;
  // A closed connection is usually a dead process: give its exit a moment to be reported.
  const exit = proc.exit ?? (await untilAborted(proc.exited, timeoutSignal(exitReportMs), () => undefined));
  if (exit && !killed) {
    return exitFailure({ label: spec.label, exit, stderr: await proc.finalStderr(), phase: 'start', setting: spec.builtin ? spec.setting : 'vigil.agent', builtin: spec.builtin });
  }
  if (!spec.builtin && isAuthError(error)) return authFailure({ label: auth?.label ?? spec.label, agentMessage: errorMessage(error), methods: auth?.methods ?? [] });
  return error;
}

/** Maps a failed prompt onto the supervisor's AgentFailure codes. `killed`: Vigil stopped the process on purpose. */
export async function classifyPromptError(error: unknown, proc: AgentChannel, killed: () => boolean, auth: KnownAuth | undefined): Promise<Error> {
  if (error instanceof RequestError) {
    const data = promptErrorData.safeParse(error.data);
    if (data.success) {
      const code = data.data.vigil.code === 'PROVIDER_AUTH' ? 'PROVIDER_AUTH' : data.data.vigil.code === 'PROVIDER_QUOTA' ? 'PROVIDER_QUOTA' : 'AGENT_FAILED';
      return failure(error, code, error.message);
    }
    if (auth && !auth.spec.builtin && isAuthError(error)) return authFailure({ label: auth.label, agentMessage: error.message, methods: auth.methods });
    return failure(error, 'AGENT_FAILED', `The agent answered the prompt with an error: ${error.message}`);
  }
  // Closed connection: wait briefly for the exit status so a crash is reported as one.
  const exit = await untilAborted(proc.exited, timeoutSignal(exitReportMs), () => undefined);
  if (exit && !killed()) {
    const spec = auth?.spec;
    return exitFailure({ label: spec?.label ?? 'the agent', exit, stderr: await proc.finalStderr(), phase: 'turn', setting: spec && !spec.builtin ? 'vigil.agent' : (spec?.setting ?? 'vigil.agent'), builtin: spec?.builtin ?? false });
  }
  if (exit) return failure(error, 'AGENT_FAILED', 'The agent process was stopped during the turn.');
  return failure(error, 'AGENT_FAILED');
}

/** Whether an error already carries the supervisor's AgentFailure (it was explained where it happened). */
export function hasFailure(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | undefined)?.cause as Partial<AgentFailure> | undefined;
  return error instanceof Error && typeof cause === 'object' && cause !== null && typeof cause.code === 'string' && typeof cause.message === 'string';
}

export function failure(error: unknown, code: AgentFailure['code'], message = errorMessage(error)): Error {
  const cause: AgentFailure = { code, message };
  const wrapped = new Error(message, { cause });
  (wrapped as Error & { original?: unknown }).original = error;
  return wrapped;
}
