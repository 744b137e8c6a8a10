// Turns ACP traffic into the supervisor's AgentEvents: a short description and what the turn now waits on.

import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { fileEditedUpdate, type FileEditView } from '../../../shared/fileEdits';
import type { AgentEvent, WaitingOn } from '../ports/agentHandle';
import { isStateUpdate } from './agentSessionState';
import { retryNoticeText, type ProviderRetryParams } from '../../../shared/providerRetry';

interface OpenTool {
  title: string;
  /** True once the tool's work runs in a client terminal whose output reaches us as activity. */
  observable: boolean;
}

/** Per prompt: remembers the tool calls in flight so later events say which tool the turn waits on. */
export class ActivityDescriber {
  private readonly tools = new Map<string, OpenTool>();
  private currentToolId: string | undefined;

  fromUpdate(update: SessionUpdate): AgentEvent {
    const raw = update as unknown as Record<string, unknown>;
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        return { description: 'model: streaming', waitingOn: { kind: 'model' }, update: raw };
      case 'agent_thought_chunk':
        return { description: 'model: thinking', waitingOn: { kind: 'model' }, update: raw };
      case 'tool_call': {
        const done = update.status === 'completed' || update.status === 'failed';
        if (!done) {
          this.tools.set(update.toolCallId, { title: update.title, observable: false });
          this.currentToolId = update.toolCallId;
        }
        return { description: `tool: ${update.title}`, waitingOn: done ? { kind: 'agent' } : this.toolWait(update.toolCallId), update: raw };
      }
      case 'tool_call_update': {
        const tool = this.tools.get(update.toolCallId);
        if (update.title && tool) tool.title = update.title;
        const title = tool?.title ?? update.title ?? update.toolCallId;
        if (update.status === 'completed' || update.status === 'failed') {
          this.tools.delete(update.toolCallId);
          if (this.currentToolId === update.toolCallId) this.currentToolId = undefined;
          return { description: `tool ${update.status}: ${title}`, waitingOn: this.afterTool(), update: raw };
        }
        if (tool) this.currentToolId = update.toolCallId;
        return { description: `tool: ${title}`, waitingOn: tool ? this.toolWait(update.toolCallId) : { kind: 'agent' }, update: raw };
      }
      case 'plan':
        return { description: 'agent: plan updated', waitingOn: this.afterTool(), update: raw };
      default:
        // The agent's options, commands, usage and title are state kept apart (agentSessionState.ts), not
        // conversation: still activity, but not written into the transcript on every turn.
        if (isStateUpdate(raw)) return { description: `agent: ${update.sessionUpdate}`, waitingOn: this.afterTool() };
        return { description: `agent: ${update.sessionUpdate}`, waitingOn: this.afterTool(), update: raw };
    }
  }

  /** An agent→client request that is part of the current tool (fs, terminal output polling…). */
  request(description: string): AgentEvent {
    return { description, waitingOn: this.afterTool() };
  }

  /** A foreground client terminal: its output is activity, so the short bound applies. */
  foregroundCommand(description: string): AgentEvent {
    const id = this.currentToolId;
    const tool = id ? this.tools.get(id) : undefined;
    if (tool) tool.observable = true;
    const waitingOn: WaitingOn = { kind: 'tool', name: tool?.title ?? description, toolCallId: id, observable: true };
    return { description, waitingOn };
  }

  /** The built-in agent waits before retrying a model request: activity, and a notice in the transcript. */
  providerRetry(p: ProviderRetryParams): AgentEvent {
    const text = retryNoticeText(p);
    return { description: `model: ${text.charAt(0).toLowerCase()}${text.slice(1, -1)}`, waitingOn: { kind: 'model' }, notice: text };
  }

  /** A write Vigil made for the agent: kept in the transcript for the running tool's card and the turn's change list. */
  fileEdited(edit: FileEditView, file: FileEditView): AgentEvent {
    const toolCallId = this.currentToolId && this.tools.has(this.currentToolId) ? this.currentToolId : undefined;
    const update = { sessionUpdate: fileEditedUpdate, ...(toolCallId ? { toolCallId } : {}), edit, file };
    return { description: `fs: wrote ${edit.path}`, waitingOn: this.afterTool(), update };
  }

  approvalOpened(title: string): AgentEvent {
    return { description: `waiting for your approval: ${title}`, waitingOn: { kind: 'approval' }, approval: 'opened' };
  }

  approvalClosed(title: string, answer: string): AgentEvent {
    return { description: `approval ${answer}: ${title}`, waitingOn: this.afterTool(), approval: 'closed' };
  }

  private toolWait(id: string): WaitingOn {
    const tool = this.tools.get(id);
    return { kind: 'tool', name: tool?.title ?? id, toolCallId: id, observable: tool?.observable ?? false };
  }

  private afterTool(): WaitingOn {
    return this.currentToolId && this.tools.has(this.currentToolId) ? this.toolWait(this.currentToolId) : { kind: 'agent' };
  }
}
