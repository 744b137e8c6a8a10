// How MCP tools are shown to the model: names every model API accepts, unique and bounded; descriptions and
// schemas bounded; results as bounded text whatever the server sends.

import * as assert from 'node:assert/strict';
import { maxDescriptionChars, maxResultChars, resultText, toolNameFor, toolSpecFor } from '../../../src/agent/mcp/mcpToolNames';

const modelSafe = /^[A-Za-z0-9_-]{1,64}$/;

describe('MCP tools as the model sees them', () => {
  it('namespaces and sanitizes names; long or colliding names get a short hash and stay unique', () => {
    const taken = new Set<string>();
    const name = (server: string, tool: string) => {
      const n = toolNameFor(server, tool, taken);
      taken.add(n);
      return n;
    };
    assert.equal(name('files', 'read_file'), 'mcp__files__read_file');
    assert.equal(name('files', 'weird.name/with spaces'), 'mcp__files__weird_name_with_spaces');
    const twin = name('files', 'weird name.with/spaces');
    assert.notEqual(twin, 'mcp__files__weird_name_with_spaces');
    assert.match(twin, /^mcp__files__weird_name_with_spaces_[0-9a-f]{8}$/);
    const long = name('server', 'x'.repeat(200));
    assert.equal(long.length, 64);
    for (const n of taken) assert.match(n, modelSafe);
    assert.equal(taken.size, 4);
  });

  it('bounds the description and replaces junk or huge schemas by "any object"', () => {
    const spec = toolSpecFor('mcp__s__t', 's', { name: 't', description: 'd'.repeat(10_000), inputSchema: { type: 'object', properties: { a: { type: 'string' } } } });
    assert.ok(spec.description.length < maxDescriptionChars + 100);
    assert.match(spec.description, /^\(MCP server "s", tool "t"\) d+…$/);
    assert.deepEqual(spec.parameters, { type: 'object', properties: { a: { type: 'string' } } });
    const anyObject = { type: 'object', additionalProperties: true };
    assert.deepEqual(toolSpecFor('n', 's', { name: 't', inputSchema: 'junk' }).parameters, anyObject);
    assert.deepEqual(toolSpecFor('n', 's', { name: 't', inputSchema: { type: 'array' } }).parameters, anyObject);
    const huge = { type: 'object', properties: Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`p${i}`, { type: 'string' }])) };
    assert.deepEqual(toolSpecFor('n', 's', { name: 't', inputSchema: huge }).parameters, anyObject);
  });

  it('turns any result into bounded text', () => {
    assert.equal(resultText({ content: [{ type: 'text', text: 'a' }, { type: 'image', mimeType: 'image/png', data: 'xx' }, { type: 'resource_link', uri: 'file:///x' }] }), 'a\n[image (image/png) not shown]\n[link: file:///x]');
    assert.equal(resultText({ content: [{ type: 'resource', resource: { uri: 'file:///r', text: 'body' } }] }), '[resource file:///r]\nbody');
    assert.equal(resultText({ structuredContent: { ok: true } }), '{"ok":true}');
    assert.equal(resultText({ content: 'junk' }), '(the tool returned nothing)');
    assert.equal(resultText({ content: [{ type: 'mystery' }] }), '[mystery content not shown]');
    const big = resultText({ content: [{ type: 'text', text: 'x'.repeat(maxResultChars + 10) }] });
    assert.match(big, /\n… \(10 more characters cut\)$/);
  });
});
