// Asks the client for permission before a tool that writes or runs something; the host applies its approval policy.

import type { PermissionOption, ToolCallUpdate, ToolKind } from '@agentclientprotocol/sdk';
import { ToolError, type ToolContext } from './toolContext';

const options: PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Allow always (this session)', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
];

/**
 * Resolves when allowed; throws a ToolError when rejected; rethrows the abort when the turn was cancelled.
 * "Allow always" is remembered under `alwaysKey`: the tool kind for built-in tools, one MCP tool's name for those.
 */
export async function ensurePermission(ctx: ToolContext, kind: ToolKind, toolCall: ToolCallUpdate, alwaysKey: string = kind): Promise<void> {
  if (ctx.allowedAlways.has(alwaysKey)) return;
  const answer = await ctx.client.requestPermission(toolCall, options, ctx.signal);
  if (answer.outcome === 'cancelled') {
    throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new ToolError('The permission request was cancelled.');
  }
  if (answer.optionId === 'allow_always') ctx.allowedAlways.add(alwaysKey);
  if (answer.optionId !== 'allow_once' && answer.optionId !== 'allow_always') {
    throw new ToolError('The person (or the workspace approval policy) rejected this action, or nobody answered the approval in time (vigil.approvals.timeoutSeconds). Do not retry it now; ask the person or choose another way.');
  }
}
