// One `session/prompt` of the built-in agent: the system prompt (mode, the folder's instruction files), the
// agent loop with compaction before each model call and a `usage_update` after it, and, after a new session's
// first turn, its title (`session_info_update`) asked of the model in the background.

import type { AgentContext, SessionUpdate, StopReason } from '@agentclientprotocol/sdk';
import { runAgentLoop } from './agentLoop';
import { clientPortFor } from './clientPort';
import { compactIfNeeded } from './compaction';
import type { AgentConfig } from './config';
import { defaultContextWindow } from './contextUsage';
import { instructionsNote, instructionsPrompt, readInstructions } from './instructions';
import { log } from './log';
import { modeInfo } from './modes';
import type { ModelProvider } from './providers/types';
import type { AgentSession } from './session';
import { sessionTitle } from './sideCall';
import { wakeupPrefix } from '../shared/agentProtocol/vigilMethods';
import { providerRetryMethod, retryNoticeText, type ProviderRetryParams } from '../shared/providerRetry';

export interface PromptDeps {
  config: AgentConfig;
  client: AgentContext;
  /** Whether the client advertised this `_vigil/*` method or feature. */
  hostServes(name: string): boolean;
}

const basePrompt = (cwd: string, mcpProblems: readonly string[]) =>
  `You are Vigil's built-in coding agent working in the workspace folder ${cwd}. Use the tools to read, search, edit and run. ` +
  'For long commands (builds, test suites, servers) use run_command with background=true, then end your turn saying you will continue; ' +
  `a message starting with "${wakeupPrefix.trim()}" brings you the result. Be concise.` +
  (mcpProblems.length > 0 ? `\nUnavailable in this session (tell the person if they ask for them): ${mcpProblems.join('; ')}.` : '');

/** Runs the turn; the session's history is updated as it goes. Throws as the loop does (cancel, provider errors). */
export async function runPromptTurn(d: PromptDeps, session: AgentSession, model: ModelProvider, turn: AbortController): Promise<StopReason> {
  const { config, client } = d;
  const emit = (update: SessionUpdate) => client.notify('session/update', { sessionId: session.id, update });
  const instructions = await readInstructions(session.cwd);
  const named = instructions.map((f) => `${f.name}${f.cut ? ' (cut)' : ''}`).join(', ');
  if (instructions.length > 0 && session.instructionsNamed !== named) {
    await emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: instructionsNote(instructions) } });
  }
  session.instructionsNamed = named;
  // The session's MCP servers start with its first prompt (in parallel, bounded), not with the agent.
  const extraTools = session.mcp.isEmpty ? undefined : await session.mcp.prepare();
  const folderPart = instructionsPrompt(instructions);
  const system = () => `${basePrompt(session.cwd, session.mcp.problems)}\n${modeInfo[session.mode].prompt}${folderPart}`;
  const timeouts = { firstTokenMs: config.firstTokenTimeoutMs, idleMs: config.idleTimeoutMs, turnMs: config.turnTimeoutMs };
  // The configured window, else the listed model's (the list may arrive during the turn), else the default.
  const syncWindow = () => (session.meter.contextWindow = config.contextWindow ?? session.modelWindow ?? defaultContextWindow);
  const stopReason = await runAgentLoop({
    provider: model,
    system,
    mode: () => session.mode,
    beforeCall: async () => {
      syncWindow();
      await compactIfNeeded({ provider: model, system: system(), history: session.history, meter: session.meter, compactAt: config.compactAt, maxOutputTokens: config.maxTokens, signal: turn.signal, timeouts, emit });
    },
    afterCall: async (usage) => {
      if (usage) session.meter.record(usage, session.history.length);
      syncWindow();
      await emit(session.meter.update(system(), session.history));
    },
    extraTools,
    history: session.history,
    maxSteps: config.maxSteps,
    timeouts,
    emit,
    retry: {
      policy: { maxRetries: config.retryMaxRetries, baseDelayMs: config.retryBaseDelayMs, maxDelayMs: 30_000, maxWaitMs: config.retryMaxWaitMs },
      onRetry: async (notice) => {
        log('warn', `model call: ${retryNoticeText(notice)}`);
        // Only a host that advertised the method hears of it; a plain ACP client sees the longer silence.
        if (!d.hostServes(providerRetryMethod)) return;
        const params: ProviderRetryParams = { sessionId: session.id, ...notice };
        await client.notify(providerRetryMethod, params).catch((error: unknown) => log('debug', `could not report the retry: ${String(error)}`));
      },
    },
    tool: {
      sessionId: session.id,
      cwd: session.cwd,
      client: clientPortFor(client, session.id),
      hostServes: d.hostServes,
      signal: turn.signal,
      commandTimeoutMs: config.commandTimeoutMs,
      allowedAlways: session.allowedAlways,
      publishPlan: (entries) => emit({ sessionUpdate: 'plan', entries: entries.map((e) => ({ ...e, priority: 'medium' as const })) }),
    },
  });
  if (stopReason === 'end_turn' && !session.titled) {
    session.titled = true;
    void nameSession(d, session, model, timeouts);
  }
  return stopReason;
}

/** After a new session's first turn: the model's short title for it, sent as `session_info_update`. Never fails the turn. */
async function nameSession(d: PromptDeps, session: AgentSession, model: ModelProvider, timeouts: { firstTokenMs: number; idleMs: number; turnMs: number }): Promise<void> {
  try {
    const title = await sessionTitle(model, session.history, session.closed.signal, { ...timeouts, turnMs: Math.min(timeouts.turnMs, 120_000) });
    if (!title || session.closed.signal.aborted) return;
    log('info', `session ${session.id}: titled "${title}"`);
    await d.client.notify('session/update', { sessionId: session.id, update: { sessionUpdate: 'session_info_update', title } });
  } catch (error) {
    log('info', `session ${session.id}: no title (${error instanceof Error ? error.message : String(error)})`);
  }
}
