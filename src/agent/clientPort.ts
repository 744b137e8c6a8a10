// Adapts the SDK's agent-side context (calls into the ACP client) to the tools' ClientPort.

import type { AgentContext } from '@agentclientprotocol/sdk';
import type { ClientPort } from './tools/toolContext';
import type { VigilTerminalMeta } from '../shared/agentProtocol/vigilMethods';

export function clientPortFor(client: AgentContext, sessionId: string): ClientPort {
  // Every request stops waiting the moment the turn is cancelled: `cancelled` must not wait on the client.
  const opts = (signal: AbortSignal) => ({ cancellationSignal: signal, stopWaitingOnCancel: true });
  return {
    async readTextFile(path, signal, range) {
      const r = await client.request('fs/read_text_file', { sessionId, path, ...(range?.line ? { line: range.line } : {}), ...(range?.limit ? { limit: range.limit } : {}) }, opts(signal));
      return r.content;
    },
    async writeTextFile(path, content, signal) {
      await client.request('fs/write_text_file', { sessionId, path, content }, opts(signal));
    },
    async createTerminal(req, signal) {
      const vigil: VigilTerminalMeta | undefined = req.background
        ? { background: true, notify: { onExit: true, ...(req.notifyPattern ? { pattern: req.notifyPattern } : {}) } }
        : undefined;
      const handle = await client.createTerminal(
        { sessionId, command: req.command, ...(req.args ? { args: req.args } : {}), cwd: req.cwd, ...(vigil ? { _meta: { vigil } } : {}) },
        opts(signal),
      );
      return handle;
    },
    async requestPermission(toolCall, options, signal) {
      const r = await client.request('session/request_permission', { sessionId, toolCall, options }, opts(signal));
      return r.outcome.outcome === 'selected' ? { outcome: 'selected', optionId: r.outcome.optionId } : { outcome: 'cancelled' };
    },
    hostRequest(method, params, signal) {
      return client.request(method, params, opts(signal));
    },
  };
}
