// How the built-in agent is bundled, shared by scripts/build.mjs and the unit tests' agent bundle
// (test/unit/agent/agentBundle.ts); CommonJS so both can load it.
//
// The agent is bundled as ES modules with code splitting: what a session needs at spawn (the ACP
// connection, the tools, the demo) is in the entry chunk, and each `import()` in src/agent (the
// OpenAI and Anthropic providers with their SDKs, the MCP client) becomes a chunk read only when a
// session first uses it. A CommonJS bundle would inline all of them, and every agent process would
// carry the parsed source of SDKs it never calls. `agent.js` beside the chunk folder is a small
// CommonJS loader, so the path the host spawns (`dist/agent.js`) stays the same.

'use strict';

/** esbuild options for the agent's chunks in `outdir` (entry: `<outdir>/main.mjs`). */
function agentBuildOptions(outdir) {
  return {
    entryPoints: { main: 'src/agent/main.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    // Dependencies written as CommonJS call require() and read __dirname; ES modules have neither.
    banner: {
      js: [
        "import { createRequire as __vigilCreateRequire } from 'node:module';",
        "import { dirname as __vigilDirname } from 'node:path';",
        "import { fileURLToPath as __vigilFileUrlToPath } from 'node:url';",
        'const require = __vigilCreateRequire(import.meta.url);',
        'const __filename = __vigilFileUrlToPath(import.meta.url);',
        'const __dirname = __vigilDirname(__filename);',
      ].join('\n'),
    },
  };
}

/** The CommonJS loader written as `<folder>/agent.js` next to the `<folder>/agent/` chunks. */
const agentLoaderSource = `'use strict';
// Starts Vigil's built-in agent: its ES module chunks are in ./agent (see scripts/agentBuild.cjs).
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');
import(pathToFileURL(join(__dirname, 'agent', 'main.mjs')).href).catch((error) => {
  process.stderr.write('[vigil-agent] error: the agent could not load: ' + (error && error.stack ? error.stack : String(error)) + '\\n');
  process.exit(1);
});
`;

module.exports = { agentBuildOptions, agentLoaderSource };
