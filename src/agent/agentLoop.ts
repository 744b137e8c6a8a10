// The agent loop of one prompt: model call (streamed) → tool calls → results → … until the model ends its turn or the step cap.

import type { SessionUpdate, StopReason, ToolCallContent } from '@agentclientprotocol/sdk';
import { modelCall, type RetryNotice } from './modelCall';
import { defaultRetryPolicy, type RetryPolicy } from './providers/retryPolicy';
import { withTimeouts } from './providers/timeouts';
import type { ChatMessage, ModelProvider, ToolCallRequest } from './providers/types';
import { runTool } from './tools/runTool';
import type { ExtraTools } from './tools/extraTools';
import type { ToolContext, ToolResult } from './tools/toolContext';
import { log } from './log';
import { toolKinds, toolSpecs, isToolName } from './tools/toolSpecs';
import { defaultMode, modeAllows, refusedInMode, type AgentMode } from './modes';

export interface CallUsage {
  inputTokens: number;
  outputTokens: number;
  cost?: number;
}

export interface LoopOptions {
  provider: ModelProvider;
  /** Read before each model call: it names the session's mode, which may change during the turn. */
  system(): string;
  /** The session's mode, read before each call and each tool: a tool it does not allow is neither offered nor run. */
  mode?(): AgentMode;
  /** Before each model call (compaction), and after it with the server's count when it gave one (usage). */
  beforeCall?(): Promise<void>;
  afterCall?(usage: CallUsage | undefined): Promise<void>;
  history: ChatMessage[];
  tool: ToolContext;
  maxSteps: number;
  timeouts: { firstTokenMs: number; idleMs: number; turnMs: number };
  emit(update: SessionUpdate): Promise<void>;
  /** Tools beyond the built-in ones (the session's MCP servers'). */
  extraTools?: ExtraTools;
  /** Transient model failures are retried by this policy (default: `defaultRetryPolicy`), each announced first. */
  retry?: { policy: RetryPolicy; onRetry(notice: RetryNotice): Promise<void> };
}

/** Runs until the model stops; throws the abort reason on cancel and provider errors as they are. History is updated as it goes. */
export async function runAgentLoop(o: LoopOptions): Promise<StopReason> {
  const allTools = [...toolSpecs(), ...(o.extraTools?.specs ?? [])];
  const turnDeadline = Date.now() + o.timeouts.turnMs;
  for (let step = 0; step < o.maxSteps; step += 1) {
    let text = '';
    const calls: ToolCallRequest[] = [];
    let reason: 'stop' | 'tool_calls' | 'max_tokens' | 'refusal' = 'stop';
    let usage: CallUsage | undefined;
    await o.beforeCall?.();
    const mode = o.mode?.() ?? defaultMode;
    const tools = allTools.filter((t) => modeAllows(mode, t.name));
    const system = o.system();
    try {
      const events = modelCall({
        open: (callAbort) =>
          withTimeouts(
            o.provider.stream({ system, messages: o.history, tools }, callAbort.signal),
            { ...o.timeouts, turnDeadline },
            (error) => callAbort.abort(error),
            o.tool.signal,
          ),
        policy: o.retry?.policy ?? defaultRetryPolicy,
        signal: o.tool.signal,
        onRetry: (notice) => o.retry?.onRetry(notice) ?? Promise.resolve(),
      });
      for await (const event of events) {
        switch (event.kind) {
          case 'text':
            text += event.text;
            await o.emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } });
            break;
          case 'thought':
            await o.emit({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.text } });
            break;
          case 'toolCall':
            calls.push(event.call);
            break;
          case 'end':
            reason = event.reason;
            break;
          case 'usage':
            usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens, ...(event.cost !== undefined ? { cost: event.cost } : {}) };
            break;
        }
      }
    } finally {
      // Partial text is kept even on cancel or failure, so the history matches what the person saw.
      if (text || calls.length) o.history.push({ role: 'assistant', text, toolCalls: calls.length ? calls : undefined });
    }
    await o.afterCall?.(usage);
    if (calls.length === 0) {
      return reason === 'max_tokens' ? 'max_tokens' : reason === 'refusal' ? 'refusal' : 'end_turn';
    }
    for (const call of calls) {
      await runOneCall(o, call);
    }
  }
  await o.emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\n(Stopped after ${o.maxSteps} model calls in one turn.)` } });
  return 'max_turn_requests';
}

async function runOneCall(o: LoopOptions, call: ToolCallRequest): Promise<void> {
  const extra = !isToolName(call.name) && o.extraTools?.owns(call.name) ? o.extraTools : undefined;
  const kind = isToolName(call.name) ? toolKinds[call.name] : 'other';
  const rawInput = safeParse(call.arguments);
  const title = extra ? extra.describe(call.name).title : describeCall(call.name, rawInput);
  await o.emit({ sessionUpdate: 'tool_call', toolCallId: call.id, title, kind, status: 'pending', rawInput });
  await o.emit({ sessionUpdate: 'tool_call_update', toolCallId: call.id, status: 'in_progress' });
  let recorded = false;
  // Read again for each call: the person may have switched to Ask or Plan while the model was answering.
  const mode = o.mode?.() ?? defaultMode;
  try {
    const toolCall = { toolCallId: call.id, title, kind, rawInput };
    const run = !modeAllows(mode, call.name)
      ? Promise.resolve<ToolResult>({ ok: false, text: refusedInMode(mode, call.name) })
      : extra
        ? extra.run(o.tool, call.name, call.arguments, toolCall)
        : runTool(o.tool, call.name, call.arguments, toolCall);
    const result = await raceAbort(run, o.tool.signal);
    const content: ToolCallContent[] = [{ type: 'content', content: { type: 'text', text: result.text } }];
    if (result.terminalId) content.unshift({ type: 'terminal', terminalId: result.terminalId });
    o.history.push({ role: 'tool', toolCallId: call.id, name: call.name, content: result.ok ? result.text : `Error: ${result.text}` });
    recorded = true;
    await o.emit({ sessionUpdate: 'tool_call_update', toolCallId: call.id, status: result.ok ? 'completed' : 'failed', content, rawOutput: { text: result.text } });
  } finally {
    if (!recorded) {
      // Cancelled mid-tool: keep the history well-formed (every call has a result) and tell the client.
      o.history.push({ role: 'tool', toolCallId: call.id, name: call.name, content: 'Error: cancelled before a result was produced.' });
      void o.emit({ sessionUpdate: 'tool_call_update', toolCallId: call.id, status: 'failed', content: [{ type: 'content', content: { type: 'text', text: 'Cancelled.' } }] }).catch((error: unknown) => log('debug', `could not report the cancelled tool call: ${String(error)}`));
    }
  }
}

/** Rejects with the abort reason as soon as the turn is cancelled, whatever the inner promise is waiting on. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { unparsed: text };
  }
}

function describeCall(name: string, input: unknown): string {
  const a = (input ?? {}) as Record<string, unknown>;
  const detail = typeof a.command === 'string' ? a.command : typeof a.path === 'string' ? a.path : typeof a.query === 'string' ? a.query : '';
  return detail ? `${name} ${String(detail).slice(0, 120)}` : name;
}
