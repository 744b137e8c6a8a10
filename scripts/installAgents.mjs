// Installs the real ACP agents the real-agent tests drive (pinned exact versions, from the npm registry
// only) into .vscode-test/agents. Fast when already there: a marker records what was installed.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const pinned = path.join(root, 'scripts', 'agents');
const target = path.join(root, '.vscode-test', 'agents');
const marker = path.join(target, 'installed.json');

// The versions live in scripts/agents/package.json (with its lockfile), so npm itself reads them.
const manifest = JSON.parse(readFileSync(path.join(pinned, 'package.json'), 'utf8'));
const lockfile = path.join(pinned, 'package-lock.json');
const want = JSON.stringify({ dependencies: manifest.dependencies, lock: existsSync(lockfile) ? readFileSync(lockfile, 'utf8').length : 0, node: process.versions.node.split('.')[0] });

/** The binaries the launch recipes start; a marker alone is not enough if someone deleted one. */
const binaries = ['claude-agent-acp', 'codex-acp', 'gemini', 'copilot', 'opencode', 'acpx'];
const present = () => binaries.every((b) => existsSync(path.join(target, 'node_modules', '.bin', b)));

if (existsSync(marker) && readFileSync(marker, 'utf8') === want && present()) {
  console.log(`agents: ready in ${path.relative(root, target)}`);
  process.exit(0);
}

mkdirSync(target, { recursive: true });
rmSync(marker, { force: true });
copyFileSync(path.join(pinned, 'package.json'), path.join(target, 'package.json'));
const haveLock = existsSync(lockfile);
if (haveLock) copyFileSync(lockfile, path.join(target, 'package-lock.json'));
const started = Date.now();
console.log(`agents: installing ${Object.entries(manifest.dependencies).map(([n, v]) => `${n}@${v}`).join(' ')}`);
// `npm install` over the committed lockfile installs the versions it pins (`npm ci` would too, but it
// rejects lockfiles that lack other platforms' optional binaries, which npm itself leaves out).
const args = ['install', '--no-audit', '--no-fund', '--loglevel=error'];
const r = spawnSync('npm', args, { cwd: target, stdio: 'inherit', env: { ...process.env, npm_config_update_notifier: 'false' } });
if (r.status !== 0) {
  console.error(`agents: npm ${args[0]} failed (exit ${r.status ?? r.signal}); see npm's message above, then run node scripts/installAgents.mjs again`);
  process.exit(1);
}
if (!present()) {
  console.error(`agents: installed, but these binaries are missing: ${binaries.filter((b) => !existsSync(path.join(target, 'node_modules', '.bin', b))).join(', ')}`);
  process.exit(1);
}
writeFileSync(marker, want);
console.log(`agents: installed in ${Math.round((Date.now() - started) / 1000)} s`);
