// The built-in agent's modes: what each lets the model do, said to it in the system prompt and held by the
// agent loop (a tool the mode does not offer is refused even when the model calls it by name).

import type { ToolName } from './tools/toolSpecs';

export const agentModes = ['ask', 'plan', 'code'] as const;
export type AgentMode = (typeof agentModes)[number];
export const defaultMode: AgentMode = 'code';

interface ModeInfo {
  name: string;
  description: string;
  /** Built-in tools offered in the mode; `all` offers every tool, the session's MCP servers' included. */
  tools: readonly ToolName[] | 'all';
  /** What the system prompt tells the model about the mode. */
  prompt: string;
}

const readTools: readonly ToolName[] = ['read_file', 'list_files', 'search_text'];

export const modeInfo: Record<AgentMode, ModeInfo> = {
  ask: {
    name: 'Ask',
    description: 'Answers questions; may read the folder, never writes a file or runs a command.',
    tools: readTools,
    prompt: 'You are in Ask mode: answer the question. You may read, list and search files; you cannot write files or run commands, so do not offer to.',
  },
  plan: {
    name: 'Plan',
    description: 'Reads the folder and proposes a plan; writes nothing and runs nothing.',
    tools: [...readTools, 'update_plan'],
    prompt:
      'You are in Plan mode: read what you need, then propose a plan of concrete steps (publish it with update_plan) and explain it. ' +
      'You cannot write files or run commands; the person switches to Code mode to carry the plan out.',
  },
  code: {
    name: 'Code',
    description: 'Reads, edits and runs commands, asking as your approval settings say.',
    tools: 'all',
    prompt: 'You are in Code mode: read, search, edit and run as the task needs.',
  },
};

export function isAgentMode(value: unknown): value is AgentMode {
  return typeof value === 'string' && (agentModes as readonly string[]).includes(value);
}

/** Whether the mode lets the model call this tool (a built-in one by name, or any other, e.g. an MCP server's). */
export function modeAllows(mode: AgentMode, tool: string): boolean {
  const tools = modeInfo[mode].tools;
  return tools === 'all' || (tools as readonly string[]).includes(tool);
}

/** The tool result a refused call gets: the model learns why and what it may do instead. */
export function refusedInMode(mode: AgentMode, tool: string): string {
  const allowed = modeInfo[mode].tools;
  return `The ${tool} tool is not available in ${modeInfo[mode].name} mode (it offers ${allowed === 'all' ? 'every tool' : allowed.join(', ')}). Answer without it, or tell the person to switch to Code mode.`;
}
