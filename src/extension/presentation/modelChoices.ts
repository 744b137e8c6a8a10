// Choices of Select Agent / Select Model without VS Code: agent labels and identity, the remembered
// third-party agents, and splitting a typed command line; pure, unit-tested.

import type { CustomAgentSettings } from '../core/acp/agentLaunch';
import { defaultAnthropicModel } from '../../shared/agentProtocol/providers';

export const MAX_REMEMBERED_AGENTS = 5;

export function agentLabel(agent: CustomAgentSettings): string {
  return [agent.command, ...(agent.args ?? [])].map((part) => (/[\s"']/.test(part) ? JSON.stringify(part) : part)).join(' ');
}

export function sameAgent(a: CustomAgentSettings, b: CustomAgentSettings): boolean {
  return a.command === b.command && JSON.stringify(a.args ?? []) === JSON.stringify(b.args ?? []) && JSON.stringify(a.env ?? {}) === JSON.stringify(b.env ?? {});
}

/** Most recent first, no duplicates, at most MAX_REMEMBERED_AGENTS; tolerates junk read back from globalState. */
export function rememberAgent(list: unknown, agent: CustomAgentSettings): CustomAgentSettings[] {
  const known = readRemembered(list).filter((a) => !sameAgent(a, agent));
  return [agent, ...known].slice(0, MAX_REMEMBERED_AGENTS);
}

export function readRemembered(list: unknown): CustomAgentSettings[] {
  if (!Array.isArray(list)) return [];
  return list.filter((a): a is CustomAgentSettings =>
    typeof a === 'object' && a !== null && typeof a.command === 'string' && a.command.length > 0 &&
    (a.args === undefined || (Array.isArray(a.args) && a.args.every((x: unknown) => typeof x === 'string'))) &&
    (a.env === undefined || (typeof a.env === 'object' && a.env !== null && Object.values(a.env).every((x) => typeof x === 'string'))));
}

/** `gemini --acp` or `npx "@scope/agent acp"` → command and args; double or single quotes group, no shell expansion. */
export function parseCommandLine(line: string): { command: string; args: string[] } | { error: string } {
  const parts: string[] = [];
  let current = '';
  let quote: '"' | "'" | undefined;
  let inPart = false;
  for (const ch of line.trim()) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inPart = true;
    } else if (/\s/.test(ch)) {
      if (inPart) parts.push(current);
      current = '';
      inPart = false;
    } else {
      current += ch;
      inPart = true;
    }
  }
  if (quote) return { error: `A ${quote} quote is not closed.` };
  if (inPart) parts.push(current);
  if (parts.length === 0 || parts[0] === '') return { error: 'Type the command that starts the agent, e.g. gemini --acp' };
  return { command: parts[0], args: parts.slice(1) };
}

/** Model name input: may be empty (the provider's default), at most 200 characters, no spaces. */
export function validateModelName(value: string): string | undefined {
  const name = value.trim();
  if (name.length > 200) return `A model name has at most 200 characters (this one has ${name.length}).`;
  if (/\s/.test(name)) return `A model name has no spaces, e.g. gpt-4.1 or ${defaultAnthropicModel}.`;
  return undefined;
}
