// Preloaded into the workbench's processes (NODE_OPTIONS=--require) by the extension bench: times the
// require of Vigil's bundle (VIGIL_BENCH_BUNDLE) by Node's `.js` loader (read, compile, evaluate), in
// whichever process loads it (the extension host), from before the host can start activating it.
// The figure is left on globalThis for the activation probe.

import Module from 'node:module';

type Loader = (module: unknown, filename: string) => unknown;

const bundle = process.env.VIGIL_BENCH_BUNDLE;
if (bundle) {
  const loaders = (Module as unknown as { _extensions: Record<string, Loader> })._extensions;
  const jsLoader = loaders['.js'];
  loaders['.js'] = function timedLoader(this: unknown, module, filename) {
    if (filename !== bundle) return jsLoader.call(this, module, filename);
    const started = performance.now();
    try {
      return jsLoader.call(this, module, filename);
    } finally {
      (globalThis as { __vigilBenchLoadMs?: number }).__vigilBenchLoadMs = performance.now() - started;
    }
  };
}
