// How an MCP server's tools are shown to the model: namespaced `mcp__<server>__<tool>` names every model API accepts,
// bounded descriptions and schemas, and a call result turned into bounded text. A server's metadata is untrusted.

import { createHash } from 'node:crypto';
import type { ToolSpec } from '../providers/types';
import { cutText } from '../../shared/textCut';

/** OpenAI's and Anthropic's tool-name limit: `^[a-zA-Z0-9_-]{1,64}$`. */
const maxNameChars = 64;
export const maxDescriptionChars = 1_024;
/** A schema larger than this (as JSON) is replaced by "any object": it would eat the model's context. */
const maxSchemaChars = 16_384;
export const maxToolsPerServer = 100;
export const maxResultChars = 30_000;

const sanitize = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_');

/** A unique model-facing name for `tool` of `server`; `taken` holds the names given so far. */
export function toolNameFor(server: string, tool: string, taken: { has(name: string): boolean }): string {
  const plain = `mcp__${sanitize(server)}__${sanitize(tool)}`;
  if (plain.length <= maxNameChars && !taken.has(plain)) return plain;
  // Too long, or two tools that sanitize alike: a short hash of the exact names keeps them apart.
  const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);
  return `${plain.slice(0, maxNameChars - 9)}_${hash}`;
}

export interface ListedTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

export function toolSpecFor(modelName: string, server: string, tool: ListedTool): ToolSpec {
  const described = typeof tool.description === 'string' ? tool.description.trim() : '';
  const description = `(MCP server "${server}", tool "${tool.name.slice(0, 100)}") ${described.length > maxDescriptionChars ? `${described.slice(0, maxDescriptionChars)}…` : described}`.trim();
  return { name: modelName, description, parameters: boundedSchema(tool.inputSchema) };
}

function boundedSchema(schema: unknown): Record<string, unknown> {
  const anyObject = { type: 'object', additionalProperties: true };
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return anyObject;
  const record = schema as Record<string, unknown>;
  if (record.type !== 'object') return anyObject;
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return anyObject;
  }
  return text.length <= maxSchemaChars ? (JSON.parse(text) as Record<string, unknown>) : anyObject;
}

/** One content block of a tool result, as MCP sends it (loosely: a server may send more than the spec says). */
interface ResultBlock {
  type?: unknown;
  text?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  resource?: { uri?: unknown; text?: unknown; mimeType?: unknown };
}

/** The result's content as text for the model: text kept, binary parts named, everything clipped. */
export function resultText(result: { content?: unknown; structuredContent?: unknown }): string {
  const blocks = Array.isArray(result.content) ? (result.content as ResultBlock[]) : [];
  const parts = blocks.map((b) => {
    switch (b.type) {
      case 'text':
        return typeof b.text === 'string' ? b.text : '';
      case 'image':
      case 'audio':
        return `[${b.type} (${typeof b.mimeType === 'string' ? b.mimeType : 'unknown type'}) not shown]`;
      case 'resource':
        return typeof b.resource?.text === 'string' ? `[resource ${String(b.resource.uri)}]\n${b.resource.text}` : `[resource ${String(b.resource?.uri)} (binary) not shown]`;
      case 'resource_link':
        return `[link: ${String(b.uri)}]`;
      default:
        return `[${String(b.type)} content not shown]`;
    }
  });
  let text = parts.join('\n');
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (!text) text = '(the tool returned nothing)';
  return cutText(text, maxResultChars, 'cut');
}
