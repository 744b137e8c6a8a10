// What loading the extension's bundle runs, before activate(): the bundle is built as scripts/build.mjs builds
// it (scripts/extensionBuild.cjs) and loaded in a fresh Node process with a stand-in for `vscode`. zod and the
// schemas are not evaluated (they come from dist/schemas.js on first use), and `vscode` is required once.
// Times are the bench's (bench/extension.bench.ts); this checks only what runs.

import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import * as esbuild from 'esbuild';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const outDir = path.join(repoRoot, 'out', 'extension-under-test');

interface ExtensionBuild {
  extensionBuildOptions(outfile: string): esbuild.BuildOptions;
  schemasBuildOptions(outfile: string): esbuild.BuildOptions;
  schemaModules: Record<string, string>;
}
const build = createRequire(__filename)(path.join(repoRoot, 'scripts', 'extensionBuild.cjs')) as ExtensionBuild;

/** Loads `bundle` in a fresh Node process, `vscode` stood in for; reports what it required and whether zod ran. */
function loadInFreshProcess(bundle: string): { requests: string[]; zodEvaluated: boolean; exports: string[] } {
  const script = `
    const Module = require('node:module');
    const requests = [];
    const stub = () => new Proxy(function () {}, { get: (_t, key) => (key === 'prototype' ? {} : stub()), construct: () => stub(), apply: () => stub() });
    const load = Module._load;
    Module._load = function (request, parent, ...rest) {
      if (parent && parent.filename === ${JSON.stringify(bundle)}) requests.push(request);
      return request === 'vscode' ? stub() : load.call(this, request, parent, ...rest);
    };
    const loaded = require(${JSON.stringify(bundle)});
    process.stdout.write(JSON.stringify({ requests, zodEvaluated: globalThis.__zod_globalConfig !== undefined, exports: Object.keys(loaded) }));
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { requests: string[]; zodEvaluated: boolean; exports: string[] };
}

describe('the extension bundle at load (before activate)', function () {
  this.timeout(120_000);
  const extension = path.join(outDir, 'extension.js');
  const schemas = path.join(outDir, 'schemas.js');

  before(async () => {
    rmSync(outDir, { recursive: true, force: true });
    for (const options of [build.extensionBuildOptions(extension), build.schemasBuildOptions(schemas)]) {
      const result = await esbuild.build({ ...options, absWorkingDir: repoRoot, logLevel: 'silent' });
      // e.g. "Import "window" will always be undefined": an import the shared `vscode` module cannot serve.
      assert.deepEqual(result.warnings.map((w) => w.text), [], `esbuild warned building ${path.basename(options.outfile ?? '')}`);
    }
  });

  it('evaluates no zod and requires vscode once; the schemas are not read', () => {
    const { requests, zodEvaluated, exports } = loadInFreshProcess(extension);
    assert.equal(zodEvaluated, false, 'zod ran while the bundle loaded: a module on the activation path imports zod (or a schema module) statically');
    assert.deepEqual(requests.filter((r) => r === 'vscode'), ['vscode'], 'vscode is required by the one shared module only');
    assert.ok(!requests.includes('./schemas.js'), 'dist/schemas.js is read on first use, not at load');
    assert.deepEqual(exports.sort(), ['activate', 'deactivate']);
  });

  it('takes every schema module from the schemas bundle, which has them all', () => {
    const { requests, zodEvaluated, exports } = loadInFreshProcess(schemas);
    assert.ok(zodEvaluated, 'the schemas bundle carries zod');
    assert.ok(!requests.includes('zod'), 'zod is bundled in, not required');
    assert.deepEqual(exports.sort(), Object.keys(build.schemaModules).sort());
    const loaded = createRequire(__filename)(schemas) as { webviewProtocol: typeof import('../../src/shared/webviewProtocol') };
    const rejected = loaded.webviewProtocol.parseWebviewMessage({ type: 'ping', id: 'bad id!' });
    assert.ok(!rejected.ok && /request id has characters outside/.test(rejected.reason), 'a malformed message is rejected with its reason');
  });
});
