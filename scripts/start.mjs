// `npm start`: builds and packages Vigil, then serves a real VS Code workbench (code-server) on
// 127.0.0.1 with the VSIX installed and a sample workspace open, on the offline demo model.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const port = Number(process.env.VIGIL_PORT ?? 8080);
const state = path.join(root, '.vscode-test', 'start');
const workspace = path.join(state, 'sample-workspace');

function step(label, command, args) {
  console.log(`› ${label}`);
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) {
    console.error(`✗ ${label} failed (exit ${result.status}).`);
    process.exit(result.status ?? 1);
  }
}

step('packaging the extension', 'npm', ['run', '--silent', 'package']);
const installed = spawnSync('bash', [path.join(root, 'scripts', 'installCodeServer.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
if (installed.status !== 0) process.exit(installed.status ?? 1);
const entry = path.join(installed.stdout.trim(), 'out', 'node', 'entry.js');

for (const dir of ['user-data/User', 'extensions', 'xdg-config', 'xdg-data', 'xdg-cache']) mkdirSync(path.join(state, dir), { recursive: true });
if (!existsSync(workspace)) cpSync(path.join(root, 'sample'), workspace, { recursive: true });
const settingsFile = path.join(state, 'user-data', 'User', 'settings.json');
if (!existsSync(settingsFile)) {
  writeFileSync(settingsFile, JSON.stringify({ 'workbench.startupEditor': 'none', 'telemetry.telemetryLevel': 'off', 'update.mode': 'none', 'vigil.model.provider': 'demo' }, null, 2));
}
const env = {
  ...process.env,
  XDG_CONFIG_HOME: path.join(state, 'xdg-config'),
  XDG_DATA_HOME: path.join(state, 'xdg-data'),
  XDG_CACHE_HOME: path.join(state, 'xdg-cache'),
  EXTENSIONS_GALLERY: '{}',
};
const common = ['--user-data-dir', path.join(state, 'user-data'), '--extensions-dir', path.join(state, 'extensions')];
step('installing the VSIX', process.execPath, [entry, ...common, '--force', '--install-extension', path.join(root, 'dist', 'vigil.vsix')]);

const server = spawn(
  process.execPath,
  [entry, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', ...common, '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override', workspace],
  { env, stdio: ['ignore', 'ignore', 'inherit'] },
);
console.log(`\nVigil is running: open http://127.0.0.1:${port}/ in a browser (the Vigil icon is in the activity bar).`);
console.log('The model is the offline demo; choose another with "Vigil: Select Model…". Ctrl+C stops the server.\n');
const stop = () => server.kill('SIGTERM');
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.on('exit', (code) => process.exit(code ?? 0));
