// The tool kinds of ACP (`ToolKind`), written once: the session view, the transcript translator, the approval
// settings (`vigil.approvals.byKind`) and the built-in agent's tools all take them from here.

import type { ToolKind as AcpToolKind } from '@agentclientprotocol/sdk';

export const TOOL_KINDS = ['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other'] as const;

export type ToolKind = (typeof TOOL_KINDS)[number];

// A kind ACP adds or drops is a compile error here, not a silent `other` in the view.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameAsAcp: Same<ToolKind, AcpToolKind> = true;
void sameAsAcp;

const known: ReadonlySet<string> = new Set(TOOL_KINDS);

export function isToolKind(value: unknown): value is ToolKind {
  return typeof value === 'string' && known.has(value);
}

/** A kind from an agent or a record as Vigil shows it: an unknown or missing kind is `other`. */
export function toolKindOf(value: unknown): ToolKind {
  return isToolKind(value) ? value : 'other';
}
