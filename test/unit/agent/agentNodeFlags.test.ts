// The built-in agent's V8 flags: passed before its script, and honoured by the runtime that runs it
// (set at run time V8 would ignore them). Their effect on idle RSS is measured by bench/agent.bench.ts.

import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { builtinAgentNodeFlags, builtinLaunch } from '../../../src/extension/core/acp/agentLaunch';
import { repoRoot } from './agentBundle';

describe('built-in agent node flags', () => {
  it('come before the agent script in the launch', () => {
    const spec = builtinLaunch({ agentScript: '/ext/dist/agent.js', execPath: '/electron', model: { provider: 'demo' } });
    assert.deepEqual(spec.args, [...builtinAgentNodeFlags, '/ext/dist/agent.js']);
  });

  it('keep the young generation of the agent process at 2 MB after a burst of garbage', () => {
    const probe = `let keep = []; for (let i = 0; i < 2e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 1000) keep = []; }
      process.stdout.write(String(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size))`;
    const bytes = Number(execFileSync(process.execPath, [...builtinAgentNodeFlags, '-e', probe], { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } }));
    assert.ok(bytes <= 2 * 1024 * 1024, `new space ${bytes} bytes`);
  });

  it('leave the agent without WebAssembly, so no agent code calls Node\'s fetch (it needs it): HTTP goes through nodeFetch', () => {
    const probe = `process.stdout.write(typeof WebAssembly)`;
    assert.equal(execFileSync(process.execPath, [...builtinAgentNodeFlags, '-e', probe], { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } }), 'undefined');
    const agentRoot = path.join(repoRoot, 'src', 'agent');
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith('.ts') && entry.name !== 'nodeFetch.ts' && /(?<![\w.])fetch\(|globalThis\.fetch\(|\bnew (?:Request|Response)\(/.test(readFileSync(file, 'utf8'))) offenders.push(path.relative(agentRoot, file));
      }
    };
    walk(agentRoot);
    assert.deepEqual(offenders, []);
  });
});
