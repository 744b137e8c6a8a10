// The built-in agent's tools as the model sees them, with zod schemas that validate the model's arguments.

import type { ToolKind } from '@agentclientprotocol/sdk';
import * as z from 'zod';
import type { ToolSpec } from '../providers/types';

export const toolArgs = {
  read_file: z.object({ path: z.string().min(1), line: z.number().int().positive().optional(), limit: z.number().int().positive().optional() }),
  write_file: z.object({ path: z.string().min(1), content: z.string() }),
  edit_file: z.object({ path: z.string().min(1), old_text: z.string().min(1), new_text: z.string() }),
  list_files: z.object({ path: z.string().default('.') }),
  search_text: z.object({ query: z.string().min(1), path: z.string().optional() }),
  run_command: z.object({
    command: z.string().min(1),
    background: z.boolean().optional(),
    notify_pattern: z.string().optional(),
    timeout_seconds: z.number().positive().optional(),
  }),
  update_plan: z.object({
    entries: z.array(z.object({ content: z.string(), status: z.enum(['pending', 'in_progress', 'completed']) })),
  }),
} as const;

export type ToolName = keyof typeof toolArgs;

export const toolKinds: Record<ToolName, ToolKind> = {
  read_file: 'read',
  write_file: 'edit',
  edit_file: 'edit',
  list_files: 'search',
  search_text: 'search',
  run_command: 'execute',
  update_plan: 'think',
};

const descriptions: Record<ToolName, string> = {
  read_file: 'Read a text file of the workspace. Paths are relative to the workspace folder. For a big file give line (1-based) and limit (number of lines) to read a part.',
  write_file: 'Create or overwrite a text file with the given content.',
  edit_file: 'Replace one exact occurrence of old_text with new_text in a file. Fails if old_text is not found or is ambiguous.',
  list_files: 'List files and folders under a path (recursively, bounded). Folders end with "/".',
  search_text: 'Search the workspace for a literal text; returns path:line: text matches.',
  run_command:
    'Run a shell command in the workspace folder. Foreground by default (waits for exit, output returned). With background=true it returns at once with a task id; when the task exits (or prints a line matching notify_pattern) you will be woken with its result — end your turn and say you will continue.',
  update_plan: 'Publish your current plan as a list of steps with statuses.',
};

let specs: readonly ToolSpec[] | undefined;

/**
 * The built-in tools' specs, built on first use and then kept: they never change, and turning the zod schemas
 * into JSON schemas cost every prompt 2–3 ms before its model request (the agent runs `--jitless`). Read-only:
 * the providers copy what they send.
 */
export function toolSpecs(): readonly ToolSpec[] {
  specs ??= (Object.keys(toolArgs) as ToolName[]).map((name) => ({
    name,
    description: descriptions[name],
    parameters: z.toJSONSchema(toolArgs[name], { io: 'input' }) as Record<string, unknown>,
  }));
  return specs;
}

export function isToolName(name: string): name is ToolName {
  return Object.prototype.hasOwnProperty.call(toolArgs, name);
}
