// `vigil.mcpServers`: the person's MCP servers, validated entry by entry into ACP's `McpServer` shape. A bad entry is
// skipped with a message naming it and the fix; the others are used. Pure (no `vscode`), unit-tested.

import type { McpServer } from '@agentclientprotocol/sdk';
import type * as Schema from './mcpServerSchema';
import { envSecrets, headerSecrets, urlCredentials } from '../common/secretValues';

/** Enough for any real setup; a longer list is almost certainly generated or hostile. */
export const maxMcpServers = 32;

export interface McpSettingIssue {
  /** Which entry, as the person would find it: `#2 ("github")`. */
  entry: string;
  message: string;
}

export interface McpSettings {
  servers: McpServer[];
  issues: McpSettingIssue[];
}

const example = 'e.g. [{ "name": "files", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] }, { "name": "docs", "type": "http", "url": "http://127.0.0.1:3000/mcp" }]';

/** Validates the setting's value; `undefined`/`null` is the default (no servers). */
export function validateMcpServers(value: unknown): McpSettings {
  if (value === undefined || value === null) return { servers: [], issues: [] };
  if (!Array.isArray(value)) return { servers: [], issues: [{ entry: 'the setting', message: `must be a list of servers, ${example}. No MCP server is used.` }] };
  const servers: McpServer[] = [];
  const issues: McpSettingIssue[] = [];
  const seen = new Set<string>();
  value.forEach((raw: unknown, index) => {
    const label = describeEntry(raw, index);
    if (index >= maxMcpServers) {
      if (index === maxMcpServers) issues.push({ entry: label, message: `and the ones after it are skipped: at most ${maxMcpServers} servers are used.` });
      return;
    }
    const isHttp = typeof raw === 'object' && raw !== null && 'type' in raw && (raw as { type?: unknown }).type !== 'stdio' && (raw as { type?: unknown }).type !== undefined;
    const { httpEntry, stdioEntry, describeIssue } = serverSchema();
    const parsed = isHttp ? httpEntry.safeParse(raw) : stdioEntry.safeParse(raw);
    if (!parsed.success) {
      issues.push({ entry: label, message: `is skipped: ${parsed.error.issues.map(describeIssue).join('; ')}.` });
      return;
    }
    const entry = parsed.data;
    if (seen.has(entry.name.toLowerCase())) {
      issues.push({ entry: label, message: `is skipped: another server is already named "${entry.name}"; give each server its own name.` });
      return;
    }
    seen.add(entry.name.toLowerCase());
    if ('url' in entry) {
      const headers = Object.entries(entry.headers ?? {}).map(([n, v]) => ({ name: n, value: v }));
      servers.push(entry.type === 'http' ? { type: 'http', name: entry.name, url: entry.url, headers } : { type: 'sse', name: entry.name, url: entry.url, headers });
    } else {
      servers.push({ name: entry.name, command: entry.command, args: entry.args ?? [], env: Object.entries(entry.env ?? {}).map(([n, v]) => ({ name: n, value: v })) });
    }
  });
  return { servers, issues };
}

/**
 * The servers' secrets, redacted wherever Vigil shows text: env values and headers whose names say secret
 * (`GITHUB_TOKEN`, `Authorization`), and the credentials inside URLs. A path or a plain URL stays readable.
 */
export function mcpSecrets(servers: readonly McpServer[]): string[] {
  return servers.flatMap((s) =>
    'url' in s
      ? [...headerSecrets(s.headers), ...urlCredentials(s.url)]
      : envSecrets(Object.fromEntries(s.env.map((e) => [e.name, e.value]))),
  );
}

/** What one server is, for the log and the confirmation question; never includes env or header values. */
export function describeMcpServer(server: McpServer): string {
  if ('url' in server) {
    const headers = server.headers.map((h) => h.name);
    return `${server.name}: ${'type' in server ? server.type : 'http'} ${server.url}${headers.length ? ` (headers: ${headers.join(', ')})` : ''}`;
  }
  const env = server.env.map((e) => e.name);
  return `${server.name}: ${[server.command, ...server.args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}${env.length ? ` (environment: ${env.join(', ')})` : ''}`;
}

function describeEntry(raw: unknown, index: number): string {
  const n = typeof raw === 'object' && raw !== null ? (raw as { name?: unknown }).name : undefined;
  return typeof n === 'string' && n.length > 0 ? `#${index + 1} ("${n.slice(0, 40)}")` : `#${index + 1}`;
}

let schema: typeof Schema | undefined;

/**
 * The entries' zod schemas, loaded with zod on the first server to check: most people set none, and the
 * extension then activates without zod. A failure to load them is thrown to the caller, saying what to do
 * (at activation, VS Code shows it as the reason activation failed).
 */
function serverSchema(): typeof Schema {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  schema ??= require('./mcpServerSchema') as typeof Schema;
  return schema;
}
