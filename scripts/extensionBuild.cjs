// How the extension host's bundle is built, shared by scripts/build.mjs and the unit test of what its
// load evaluates (test/unit/activationBundle.test.ts); CommonJS so both can load it.
//
// VS Code reads, compiles and runs dist/extension.js whole before it calls activate(), so the bundle carries
// what activation needs and runs it once:
// * No zod. The modules that build zod schemas (the webview protocol, the entries of vigil.mcpServers) are
//   required on first use (a message from a view, a server to check), and the bundle takes them from
//   dist/schemas.js (src/extension/schemas.ts), with zod. Inside the bundle, even wrapped to run later,
//   zod's ~100 KB of minified source more than doubled the compile time of every activation.
// * `vscode` is required by one module that re-exports it. esbuild otherwise converts an external CommonJS
//   module in every module importing it (`__toESM`, a copy of all its exports): for the ~20 modules that
//   import `vscode`, most of the bundle's evaluation.
// The services (dist/services.js) are a bundle of their own, loaded on first use (servicesLoader.ts).

'use strict';

const path = require('node:path');

/**
 * Resolves `specifier` to one module of the bundle that re-exports the external module, required once.
 * Namespace and named imports work through it (`import * as vscode from 'vscode'`); a default import does not.
 */
function sharedExternal(specifier) {
  const namespace = `shared-${specifier}`;
  const exact = new RegExp(`^${specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  return {
    name: namespace,
    setup(build) {
      build.onResolve({ filter: exact }, (args) => (args.namespace === namespace ? { path: specifier, external: true } : { path: specifier, namespace }));
      build.onLoad({ filter: /.*/, namespace }, () => ({ contents: `export * from ${JSON.stringify(specifier)};`, loader: 'js' }));
    },
  };
}

/** The modules dist/schemas.js carries, by their export in src/extension/schemas.ts. */
const schemaModules = { webviewProtocol: 'src/shared/webviewProtocol.ts', mcpServerSchema: 'src/extension/core/acp/mcpServerSchema.ts' };

/** Takes the modules of `schemaModules` from dist/schemas.js, beside the bundle, wherever the bundle imports them. */
function fromSchemasBundle() {
  const namespace = 'schemas-bundle';
  const names = Object.keys(schemaModules);
  return {
    name: namespace,
    setup(build) {
      const root = build.initialOptions.absWorkingDir ?? process.cwd();
      const byPath = new Map(Object.entries(schemaModules).map(([name, file]) => [path.resolve(root, file), name]));
      build.onResolve({ filter: new RegExp(`(^|/)(${names.join('|')})(\\.ts)?$`) }, async (args) => {
        if (args.pluginData?.[namespace]) return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { [namespace]: true } });
        const name = byPath.get(resolved.path);
        return name ? { path: name, namespace } : resolved;
      });
      build.onResolve({ filter: /.*/, namespace }, (args) => ({ path: args.path, external: true }));
      build.onLoad({ filter: /.*/, namespace }, (args) => ({
        // A missing or broken file says what it is, to the caller that reports it. esbuild keeps a module's
        // exports even when it threw, so later uses get the same error rather than an empty object.
        contents: [
          'try {',
          `  module.exports = require('./schemas.js').${args.path};`,
          '} catch (cause) {',
          `  const error = new Error('Vigil could not load dist/schemas.js (' + (cause && cause.message) + '); reinstall the extension.', { cause });`,
          '  module.exports = new Proxy({}, { get() { throw error; } });',
          '  throw error;',
          '}',
        ].join('\n'),
        loader: 'js',
      }));
    },
  };
}

/** esbuild options for the extension host's bundle at `outfile` (dist/extension.js). */
function extensionBuildOptions(outfile) {
  return {
    entryPoints: ['src/extension/extension.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    plugins: [sharedExternal('vscode'), fromSchemasBundle()],
    // jsonc-parser's `main` is a UMD build whose requires esbuild cannot follow; its ES modules bundle.
    alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    // Stamped before any module of the bundle runs and after the last, so activation can report the
    // bundle's evaluation and load + activate.
    banner: { js: 'globalThis.__vigilBundleStart = performance.now();' },
    footer: { js: 'globalThis.__vigilBundleEnd = performance.now();' },
  };
}

/** esbuild options for the schemas the extension bundle loads on first use, at `outfile` (dist/schemas.js). */
function schemasBuildOptions(outfile) {
  return { entryPoints: ['src/extension/schemas.ts'], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] };
}

module.exports = { extensionBuildOptions, schemasBuildOptions, schemaModules };
