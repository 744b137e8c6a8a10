// Desktop VS Code runs the extension-host suite through @vscode/test-electron (it downloads
// VS Code, so it cannot run on CI here, which uses the code-server harness instead).
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  files: 'out/test/suite/**/*.test.js',
  workspaceFolder: './sample',
  mocha: { ui: 'bdd', timeout: 60000 },
});
