// `vigil.mcpServers`: the person's MCP servers, validated entry by entry into ACP's `McpServer` shape. A bad entry is
// skipped with a message naming it and the fix; the others are used. Pure (no `vscode`), unit-tested.

import type { McpServer } from '@agentclientprotocol/sdk';
import * as z from 'zod';

/** Enough for any real setup; a longer list is almost certainly generated or hostile. */
export const maxMcpServers = 32;

/** Agents put the name into tool names (`mcp__<name>__<tool>`): keep it to characters every model API accepts. */
const name = z
  .string({ error: 'needs a "name" (text)' })
  .regex(/^[A-Za-z0-9_-]{1,40}$/, { error: '"name" must be 1 to 40 letters, digits, "_" or "-" (it becomes part of tool names)' });

const envName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** RFC 9110 token characters. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

const stdioEntry = z.strictObject(
  {
    name,
    type: z.literal('stdio').optional(),
    command: z
      .string({ error: 'needs a "command" (the program to start, e.g. "npx")' })
      .trim()
      .min(1, { error: '"command" is empty: name the program to start, e.g. "npx"' })
      .max(4096)
      .refine((s) => !s.includes('\u0000'), { error: '"command" contains a NUL byte' }),
    args: z
      .array(z.string({ error: 'every item of "args" must be text' }).max(8192).refine((s) => !s.includes('\u0000'), { error: 'an item of "args" contains a NUL byte' }), { error: '"args" must be a list of texts, e.g. ["-y", "some-server"]' })
      .max(256, { error: '"args" has more than 256 items' })
      .optional(),
    env: z
      .record(
        z.string().regex(envName, { error: 'an "env" name is not a valid variable name (letters, digits and "_", not starting with a digit)' }),
        z.string({ error: 'every "env" value must be text' }).max(32_768).refine((s) => !s.includes('\u0000'), { error: 'an "env" value contains a NUL byte' }),
        { error: '"env" must be an object of names to texts, e.g. { "TOKEN": "…" }' },
      )
      .refine((r) => Object.keys(r).length <= 128, { error: '"env" has more than 128 variables' })
      .optional(),
  },
  { error: 'a stdio server is { "name", "command", "args"?, "env"? }' },
);

const httpEntry = z.strictObject(
  {
    name,
    type: z.enum(['http', 'sse'], { error: '"type" must be "http" (streamable HTTP) or "sse", or left out for a stdio server' }),
    url: z
      .string({ error: 'needs a "url", e.g. "http://127.0.0.1:3000/mcp"' })
      .max(4096)
      .refine((s) => {
        try {
          const u = new URL(s);
          return (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '';
        } catch {
          return false;
        }
      }, { error: '"url" must be an http:// or https:// address without a user name or password in it (put credentials in "headers")' }),
    headers: z
      .record(
        z.string().regex(headerName, { error: 'a "headers" name is not a valid HTTP header name' }),
        z.string({ error: 'every "headers" value must be text' }).max(8192).refine((s) => !s.includes('\r') && !s.includes('\n') && !s.includes('\u0000'), { error: 'a "headers" value contains a line break or NUL byte' }),
        { error: '"headers" must be an object of header names to texts, e.g. { "Authorization": "Bearer …" }' },
      )
      .refine((r) => Object.keys(r).length <= 64, { error: '"headers" has more than 64 entries' })
      .optional(),
  },
  { error: 'an HTTP server is { "name", "type": "http" | "sse", "url", "headers"? }' },
);

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

/** Every env and header value of the servers: treated as secrets (tokens), redacted wherever Vigil shows text. */
export function mcpSecrets(servers: readonly McpServer[]): string[] {
  return servers.flatMap((s) => ('url' in s ? s.headers.map((h) => h.value) : s.env.map((e) => e.value)));
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

function describeIssue(issue: z.core.$ZodIssue): string {
  // A bad key of env/headers: the key's own message (with the key), not the record's "must be an object".
  if (issue.code === 'invalid_key') return `${issue.issues[0]?.message ?? issue.message} ("${String(issue.path[issue.path.length - 1]).slice(0, 60)}")`;
  if (issue.code === 'unrecognized_keys') return `unknown ${issue.keys.length === 1 ? 'property' : 'properties'} ${issue.keys.map((k) => `"${k}"`).join(', ')} (a server has name, command, args, env, or name, type, url, headers)`;
  return issue.message;
}
