// MCP server sources are combined in order, and one failing source does not keep the others' servers from the agent.

import * as assert from 'node:assert/strict';
import { collectMcpServers, type McpServerSource } from '../../../src/extension/core/acp/mcpServerSource';

describe('collectMcpServers', () => {
  it('concatenates the sources in order and logs a failing one', async () => {
    const ok = (name: string): McpServerSource => ({ serversFor: async () => [{ name, command: '/bin/true', args: [], env: [] }] });
    const broken: McpServerSource = {
      serversFor: async () => {
        throw new Error('bad setting');
      },
    };
    const errors: unknown[] = [];
    const servers = await collectMcpServers([ok('a'), broken, ok('b')], 's1', undefined, (e) => errors.push(e));
    assert.deepEqual(
      servers.map((s) => s.name),
      ['a', 'b'],
    );
    assert.equal(errors.length, 1);
  });
});
