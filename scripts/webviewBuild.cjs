// How the session webview is bundled, shared by scripts/build.mjs and the webviewPaint bench (which
// measures the minified bundle `npm run package` ships, whatever the last build was); CommonJS so
// both can load it.

'use strict';

/** esbuild options for the webview bundle at `outfile` (minification and source maps are the caller's). */
function webviewBuildOptions(outfile) {
  return { entryPoints: ['src/webview/main.ts'], outfile, bundle: true, platform: 'browser', format: 'esm', target: 'es2022' };
}

module.exports = { webviewBuildOptions };
