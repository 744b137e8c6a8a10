// The zod schemas of one `vigil.mcpServers` entry (stdio or HTTP), with the messages a person reads when an
// entry is skipped. mcpSettings.ts loads them on the first server to check (the extension's bundle takes them
// from dist/schemas.js then), so zod stays off the activation path of the many who set none.

import * as z from 'zod';

/** Agents put the name into tool names (`mcp__<name>__<tool>`): keep it to characters every model API accepts. */
const name = z
  .string({ error: 'needs a "name" (text)' })
  .regex(/^[A-Za-z0-9_-]{1,40}$/, { error: '"name" must be 1 to 40 letters, digits, "_" or "-" (it becomes part of tool names)' });

const envName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** RFC 9110 token characters. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

export const stdioEntry = z.strictObject(
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

export const httpEntry = z.strictObject(
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

export function describeIssue(issue: z.core.$ZodIssue): string {
  // A bad key of env/headers: the key's own message (with the key), not the record's "must be an object".
  if (issue.code === 'invalid_key') return `${issue.issues[0]?.message ?? issue.message} ("${String(issue.path[issue.path.length - 1]).slice(0, 60)}")`;
  if (issue.code === 'unrecognized_keys') return `unknown ${issue.keys.length === 1 ? 'property' : 'properties'} ${issue.keys.map((k) => `"${k}"`).join(', ')} (a server has name, command, args, env, or name, type, url, headers)`;
  return issue.message;
}
