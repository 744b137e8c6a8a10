// Host side of the `vscode-lm` provider: VS Code's Language Model API (e.g. Copilot) behind the ACP client's
// LanguageModelBridge port, since the agent runs in its own process and cannot reach `vscode.lm` itself.

import * as vscode from 'vscode';
import type { ChatMessage, ToolSpec } from '../../shared/agentProtocol/history';
import type { LanguageModelBridge, LanguageModelEvent, LanguageModelInfo } from '../core/acp/hostPorts';
import { VigilError, errorMessage, isVigilError } from '../core/common/errors';

export class VscodeLanguageModelBridge implements LanguageModelBridge {
  /** `select` is injectable so the extension-host tests can offer a scripted model. */
  constructor(private readonly select: () => Thenable<readonly vscode.LanguageModelChat[]> = () => vscode.lm.selectChatModels()) {}

  async listModels(): Promise<LanguageModelInfo[]> {
    const models = await this.select();
    return models.map((m) => ({ id: m.id, name: m.name, vendor: m.vendor }));
  }

  async *chat(request: { model?: string; system: string; messages: ChatMessage[]; tools: ToolSpec[] }, signal: AbortSignal): AsyncIterable<LanguageModelEvent> {
    const models = await this.select();
    const model = request.model ? models.find((m) => m.id === request.model) : models[0];
    if (!model) {
      throw new VigilError(
        'PROVIDER_FAILED',
        request.model
          ? `The VS Code language model ${request.model} is not available (offered: ${models.map((m) => m.id).join(', ') || 'none'}). Choose one with “Vigil: Select Model…”.`
          : 'This VS Code offers no language model (e.g. GitHub Copilot Chat is not installed or not signed in). Choose another provider with “Vigil: Select Model…”.',
      );
    }
    const cancel = new vscode.CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await model.sendRequest(
        toLanguageModelMessages(request.system, request.messages),
        {
          justification: 'Vigil’s built-in agent uses this model to answer in your agent sessions.',
          tools: request.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters })),
        },
        cancel.token,
      );
      for await (const part of response.stream) {
        if (signal.aborted) return;
        if (part instanceof vscode.LanguageModelTextPart) {
          if (part.value) yield { kind: 'text', text: part.value };
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          yield { kind: 'toolCall', call: { id: part.callId, name: part.name, arguments: JSON.stringify(part.input ?? {}) } };
        }
      }
    } catch (error) {
      throw toVigilError(error, model.id);
    } finally {
      signal.removeEventListener('abort', onAbort);
      cancel.dispose();
    }
  }
}

/** Neutral history → VS Code messages. The API has no system role, so the system prompt leads as a user message. */
export function toLanguageModelMessages(system: string, messages: ChatMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  if (system) out.push(vscode.LanguageModelChatMessage.User(system));
  let toolResults: vscode.LanguageModelToolResultPart[] = [];
  const flush = () => {
    // Consecutive tool results answer one assistant message: they travel together in one user message.
    if (toolResults.length > 0) out.push(vscode.LanguageModelChatMessage.User(toolResults));
    toolResults = [];
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      toolResults.push(new vscode.LanguageModelToolResultPart(message.toolCallId, [new vscode.LanguageModelTextPart(message.content)]));
      continue;
    }
    flush();
    if (message.role === 'user') {
      out.push(vscode.LanguageModelChatMessage.User(message.text));
    } else {
      const parts: Array<vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart> = [];
      if (message.text) parts.push(new vscode.LanguageModelTextPart(message.text));
      for (const call of message.toolCalls ?? []) parts.push(new vscode.LanguageModelToolCallPart(call.id, call.name, parseArguments(call.arguments)));
      out.push(vscode.LanguageModelChatMessage.Assistant(parts.length > 0 ? parts : ''));
    }
  }
  flush();
  return out;
}

function parseArguments(text: string): object {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { value };
  } catch {
    // The model produced bad JSON earlier and was told so by the tool layer; keep the raw text for context.
    return { invalidArguments: text };
  }
}

function toVigilError(error: unknown, modelId: string): VigilError {
  if (isVigilError(error)) return error;
  if (error instanceof vscode.LanguageModelError) {
    switch (error.code) {
      case vscode.LanguageModelError.NoPermissions.name:
        return new VigilError('PROVIDER_AUTH', `VS Code did not allow Vigil to use ${modelId}: ${error.message}. Allow it when VS Code asks, or choose another model.`, { cause: error });
      case vscode.LanguageModelError.Blocked.name:
        return new VigilError('PROVIDER_QUOTA', `VS Code blocked the request to ${modelId} (quota or rate limit): ${error.message}`, { cause: error });
      case vscode.LanguageModelError.NotFound.name:
        return new VigilError('PROVIDER_FAILED', `The VS Code language model ${modelId} no longer exists: ${error.message}`, { cause: error });
      default:
        break;
    }
  }
  return new VigilError('PROVIDER_FAILED', `The VS Code language model ${modelId} failed: ${errorMessage(error)}`, { cause: error });
}
