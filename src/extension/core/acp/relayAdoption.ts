// A window takes back its session's agent from the relay after a reload: the ACP connection adopts what
// the relay kept (the `initialize` answer, the agent session, the running `session/prompt`) instead of
// negotiating again, and follows the prompt to the answer the agent gives the earlier window's request.

import { RequestError, type PromptResponse } from '@agentclientprotocol/sdk';
import { errorMessage, VigilError } from '../common/errors';
import { timeoutSignal, untilAborted } from '../../../shared/untilAborted';
import { failure } from './promptFailure';
import { AGENT_MARKER_ENV, TurnLeftovers } from '../supervisor/turnLeftovers';
import type { LiveAgent, RelayedChannel } from './acpHandleDeps';
import type { LaunchSpec } from './agentLaunch';
import type { AgentSessionBook } from './agentSessionBinding';
import { connectAgent, type SpawnContext } from './agentSpawn';
import { StderrLog } from './stderrLog';

/**
 * The agent of a turn an earlier window began, re-attached for this window. The agent is already chosen and
 * running: nothing waits for a setting or asks. Undefined when this window went meanwhile (then detached
 * again: the turn stays the relay's, for the next window); throws, marked notTakenBack, when it cannot be had.
 */
export async function takeBackAgent(c: SpawnContext, book: AgentSessionBook, epoch: number | undefined, leaving: () => boolean): Promise<{ live: LiveAgent; channel: RelayedChannel; spec: LaunchSpec } | undefined> {
  let back: Awaited<ReturnType<typeof reattach>>;
  try {
    back = await reattach(c, await c.deps.launch({ takingBack: true }), book, epoch);
  } catch (error) {
    if (leaving()) return undefined;
    throw notTakenBack(failure(error, 'AGENT_CRASHED', `The agent of this turn could not be taken back after the window reloaded: ${errorMessage(error)}`));
  }
  if (leaving()) {
    await back?.channel.detach();
    return undefined;
  }
  if (!back) throw notTakenBack(failure(new VigilError('AGENT_FAILED', 'gone'), 'AGENT_CRASHED', 'The agent of this turn ended while the window reloaded.'));
  return back;
}

/** The session's agent, re-attached (its messages held until the caller's sink is ready); undefined when no relay runs it. */
export async function reattach(c: SpawnContext, windowSpec: LaunchSpec, book: AgentSessionBook, epoch?: number): Promise<{ live: LiveAgent; channel: RelayedChannel; spec: LaunchSpec } | undefined> {
  const stderr = new StderrLog(windowSpec, c.deps.log);
  const channel = await c.deps.relays?.()?.attach(c.sessionId, stderr, epoch);
  if (!channel) return undefined;
  const spec = relayedSpec(windowSpec, channel.welcome.agent);
  if (spec !== windowSpec) {
    c.deps.log.warn(`session ${c.sessionId}: this window's settings name ${windowSpec.label} (${windowSpec.command}), but the turn it takes back runs on ${spec.label} (${spec.command}); that agent finishes it`);
    stderr.relabel(spec);
  }
  const { connection, terminals } = connectAgent(c, channel, spec, true);
  connection.adoptInitialize(channel.welcome.initialize);
  const binding = await book.read(c.sessionId).catch(() => undefined);
  const sessions = channel.welcome.sessions;
  const acpSessionId = binding && sessions.includes(binding.agentSessionId) ? binding.agentSessionId : sessions.at(-1);
  if (!acpSessionId) {
    await channel.kill();
    connection.close();
    throw new VigilError('AGENT_FAILED', 'The agent behind the relay has no session to take back.');
  }
  // What the agent said of the session (its options, mode, commands, usage) before this window: the header shows it again.
  for (const kept of channel.welcome.state?.[acpSessionId] ?? []) {
    if (kept.kind === 'opened') c.agentState.opened(kept.result);
    else c.agentState.apply(kept.update as Parameters<typeof c.agentState.apply>[0]);
  }
  const live: LiveAgent = { process: channel, connection, acpSessionId, terminals, ...(binding?.opener ? { opener: binding.opener } : {}), label: spec.label, marker: channel.welcome.marker ? { name: AGENT_MARKER_ENV, value: channel.welcome.marker } : TurnLeftovers.marker() };
  return { live, channel, spec };
}

/**
 * The agent a taken-back turn runs on is the one behind the relay, not the one this window's settings name now
 * (a window can start without the person's settings, or after they changed): its identity comes from the relay.
 */
export function relayedSpec(windowSpec: LaunchSpec, relayed: RelayedChannel['welcome']['agent']): LaunchSpec {
  if (!relayed) return windowSpec;
  const same = relayed.command === windowSpec.command && relayed.args.length === windowSpec.args.length && relayed.args.every((a, i) => a === windowSpec.args[i]);
  if (same && relayed.builtin === windowSpec.builtin) return windowSpec;
  return { ...windowSpec, command: relayed.command, args: relayed.args, label: relayed.label, builtin: relayed.builtin, authMethodId: undefined };
}

/**
 * Whether the relay still runs this session's prompt, or holds its answer (given while no window was attached).
 * An answer given before this window attached reaches it in the replay, behind what the agent said first: it is
 * looked for once the replay is in (bounded), or the turn would end before the messages that came with it.
 */
export async function promptRunning(channel: RelayedChannel, acpSessionId: string, boundMs = replayWaitMs): Promise<boolean> {
  if (channel.welcome.inflight.some((i) => i.method === 'session/prompt' && i.sessionId === acpSessionId)) return true;
  await untilAborted(channel.replayed, timeoutSignal(boundMs), () => undefined);
  return channel.heldPromptAnswer(acpSessionId);
}

/** How long a take-back waits for the relay's replay before it goes on without it (a relay of 16 MiB of log replays in well under this). */
const replayWaitMs = 30_000;

/** The agent's answer to the earlier window's `session/prompt`; rejects if the agent (or its relay) ends first. */
export function promptAnswer(channel: RelayedChannel, acpSessionId: string): Promise<PromptResponse> {
  return new Promise((resolve, reject) => {
    channel.onOrphan((orphan) => {
      if (orphan.method !== 'session/prompt' || (orphan.sessionId !== undefined && orphan.sessionId !== acpSessionId)) return;
      const error = orphan.message.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
      if (error) reject(new RequestError(typeof error.code === 'number' ? error.code : -32603, typeof error.message === 'string' ? error.message : 'error', error.data));
      else resolve(orphan.message.result as PromptResponse);
    });
    void channel.exited.then(() => reject(new VigilError('AGENT_FAILED', channel.endReason ? `The agent's relay ended the turn: ${channel.endReason}.` : 'the agent process exited')));
  });
}

/** A relayed agent acknowledges what the running turn stored, not just received (see RelayedChannel.ackAfter). */
export function ackWhenStored(process: unknown, stored: (() => Promise<void>) | undefined): void {
  (process as Partial<RelayedChannel>).ackAfter?.(stored);
}

/** Marks a take-back's failure: the turn ends interrupted, offered for Resume (see AgentFailure.notTakenBack). */
export function notTakenBack(error: Error): Error {
  (error.cause as { notTakenBack?: boolean }).notTakenBack = true;
  return error;
}
