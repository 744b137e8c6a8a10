// The readable part of an agent's permission request: the command, its folder and whether it runs in the background,
// from the fields agents put in `rawInput`. Text is made safe to show (control and bidi characters escaped).

import { isAbsolute, resolve } from 'node:path';
import type { ApprovalDetails } from '../../../shared/fileEdits';
import type { EditJournal } from './editJournal';
import { shown, type ToolCallLike } from './clientGrants';
import { commandLineOf } from '../tasks/shellCommand';

const commandChars = 20_000;
const cwdChars = 4_000;

export function commandDetailsOf(toolCall: ToolCallLike): ApprovalDetails | undefined {
  const raw = toolCall.rawInput && typeof toolCall.rawInput === 'object' && !Array.isArray(toolCall.rawInput) ? (toolCall.rawInput as Record<string, unknown>) : undefined;
  if (!raw) return undefined;
  const command = commandOf(raw);
  if (command === undefined) return undefined;
  const cwd = ['cwd', 'workdir', 'working_directory', 'directory'].map((f) => raw[f]).find((v): v is string => typeof v === 'string' && v.trim() !== '');
  const background = ['background', 'run_in_background', 'is_background', 'isBackground'].some((f) => raw[f] === true);
  return { type: 'command', command: shown(command, commandChars), ...(cwd ? { cwd: shown(cwd, cwdChars) } : {}), background };
}

function commandOf(raw: Record<string, unknown>): string | undefined {
  for (const field of ['command', 'cmd', 'commandLine']) {
    const value = raw[field];
    if (typeof value === 'string' && value.trim()) return value;
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return commandLineOf(value[0] as string, value.slice(1) as string[]);
  }
  return undefined;
}

/**
 * An edit permission request whose tool call carries ACP `diff` content (agents that write files themselves send it):
 * the diff is shown in the approval and kept (bounded) so it opens in the diff editor. Nothing is read from disk.
 */
export function editDetailsOf(toolCall: ToolCallLike & { content?: unknown }, journal: EditJournal, sessionId: string, root: string): ApprovalDetails | undefined {
  const items = Array.isArray(toolCall.content) ? (toolCall.content as unknown[]) : [];
  const diff = items.find((c): c is { type: 'diff'; path: string; newText: string; oldText?: unknown } => {
    const d = c as Record<string, unknown> | null;
    return d?.type === 'diff' && typeof d.path === 'string' && d.path !== '' && !d.path.includes('\0') && typeof d.newText === 'string';
  });
  if (!diff) return undefined;
  const abs = isAbsolute(diff.path) ? resolve(diff.path) : resolve(root, diff.path);
  const before = typeof diff.oldText === 'string' ? journal.sideOf(diff.oldText) : { kind: 'missing' as const };
  const proposal = journal.propose(sessionId, root, abs, before, diff.newText);
  return { type: 'edit', edit: { ...proposal.edit.view, path: shown(proposal.edit.view.path, 1_000) }, ...(proposal.preview ? { preview: proposal.preview } : {}) };
}
