// Preloaded into the workbench's processes (NODE_OPTIONS=--require) by the workbench bench: in the extension host
// that loads the installed Vigil bundle (`…/vigil.vigil-<version>/dist/extension.js`), times its require (read,
// compile, evaluate) and its `activate()` call, VS Code's own activation figure, and appends them to
// VIGIL_BENCH_ACTIVATION_FILE as one JSON line.

import { appendFileSync } from 'node:fs';
import Module from 'node:module';

type Loader = (module: { exports: Record<string, unknown> }, filename: string) => unknown;

const file = process.env.VIGIL_BENCH_ACTIVATION_FILE;
const bundle = /[\\/]vigil\.vigil-[^\\/]+[\\/]dist[\\/]extension\.js$/;
if (file) {
  const loaders = (Module as unknown as { _extensions: Record<string, Loader> })._extensions;
  const jsLoader = loaders['.js']!;
  loaders['.js'] = function timedLoader(this: unknown, module, filename) {
    if (!bundle.test(filename)) return jsLoader.call(this, module, filename);
    const started = performance.now();
    const result = jsLoader.call(this, module, filename);
    const loadMs = performance.now() - started;
    const activate = module.exports.activate as ((...args: unknown[]) => unknown) | undefined;
    if (typeof activate === 'function') {
      module.exports = { ...module.exports, activate(...args: unknown[]) {
        const t0 = performance.now();
        try {
          return activate.apply(this, args);
        } finally {
          appendFileSync(file, `${JSON.stringify({ loadMs, activateMs: performance.now() - t0 })}\n`);
        }
      } };
    }
    return result;
  };
}
