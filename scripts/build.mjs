// Builds the bundles: extension host (CJS, vscode external), services, built-in agent and task server (Node), webview (browser ESM).
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  sourcemap: true,
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

// zod serves both the extension bundle (webview messages, settings) and the services bundle (store records, ACP,
// MCP). Each bundle would carry its own ~100 KB copy; instead dist/zod.js holds the one copy, both require it at run
// time, and Node loads it once. zod/v3 (used only by the services' MCP libraries) stays inside the services bundle.
const SHARED_ZOD = /^zod(?:\/v4|\/v4-mini)?$/;
const sharedZod = {
  name: 'shared-zod',
  setup(build) {
    build.onResolve({ filter: SHARED_ZOD }, (args) => ({ path: args.path, namespace: 'shared-zod' }));
    build.onLoad({ filter: /.*/, namespace: 'shared-zod' }, (args) => ({
      // A computed path, so esbuild leaves the require to run time; zod.js sits beside the bundle that requires it.
      contents: `module.exports = require(require('node:path').join(__dirname, 'zod.js')).${args.path === 'zod/v4-mini' ? 'mini' : 'classic'};`,
      loader: 'js',
    }));
  },
};

// dist/zod.js exports zod whole, so esbuild cannot drop what nobody uses; its 40-odd locales (a quarter of a
// megabyte) are the bulk of that. zod itself only ever applies English (`config(en())`), and Vigil reads no other,
// so `z.locales` keeps just `en`.
const englishOnlyZodLocales = {
  name: 'english-only-zod-locales',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]zod[\\/]v4[\\/]/.test(args.importer)) return undefined;
      const en = path.join(path.dirname(args.importer), '..', 'locales', 'en.js');
      if (!existsSync(en)) throw new Error(`zod's English locale is not at ${en}: update englishOnlyZodLocales in scripts/build.mjs for this zod version.`);
      return { path: en, namespace: 'zod-locales', pluginData: en };
    });
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(args.path)};`, loader: 'js', resolveDir: path.dirname(args.path) }));
  },
};

const builds = [
  {
    ...common,
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    plugins: [sharedZod],
    metafile: true,
    // Stamped before any module of the bundle runs, so activation can report load + activate.
    banner: { js: 'globalThis.__vigilBundleStart = performance.now();' },
  },
  // The services (domain core, ACP client, schemas) load on first use, off the activation path.
  { ...common, entryPoints: ['src/extension/services.ts'], outfile: 'dist/services.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], plugins: [sharedZod], metafile: true },
  { ...common, stdin: { contents: "export * as classic from 'zod'; export * as mini from 'zod/v4-mini';", resolveDir: '.', sourcefile: 'zod-shared.js' }, outfile: 'dist/zod.js', platform: 'node', format: 'cjs', target: 'node20', plugins: [englishOnlyZodLocales] },
  { ...common, entryPoints: ['src/agent/main.ts'], outfile: 'dist/agent.js', platform: 'node', format: 'cjs', target: 'node20' },
  // Vigil's MCP task server, started by third-party agents from the mcpServers Vigil passes them.
  { ...common, entryPoints: ['src/taskServer/main.ts'], outfile: 'dist/taskServer.js', platform: 'node', format: 'cjs', target: 'node20' },
  { ...common, entryPoints: ['src/webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'esm', target: 'es2022' },
];

function copyAssets() {
  mkdirSync('dist/codicons', { recursive: true });
  cpSync('node_modules/@vscode/codicons/dist/codicon.css', 'dist/codicons/codicon.css');
  cpSync('node_modules/@vscode/codicons/dist/codicon.ttf', 'dist/codicons/codicon.ttf');
}

copyAssets();
if (watch) {
  for (const options of builds) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
  }
  console.log('esbuild: watching src/ for changes');
} else {
  const results = await Promise.all(builds.map((options) => esbuild.build(options)));
  assertZodOnce(results);
}

/** The extension and services bundles must not carry zod v4 themselves (see sharedZod): a build that does fails. */
function assertZodOnce(results) {
  for (const result of results) {
    for (const [outfile, output] of Object.entries(result.metafile?.outputs ?? {})) {
      const copied = Object.keys(output.inputs).filter((input) => /node_modules\/zod\/v4\//.test(input));
      if (copied.length > 0) throw new Error(`${outfile} bundles its own zod (${copied[0]} …); import zod as 'zod', 'zod/v4' or 'zod/v4-mini' so it comes from dist/zod.js.`);
    }
  }
}
