// `npm run bench`: compiles and runs every benchmark under bench/ (one figure per line each).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const only = process.argv.slice(2);
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: 'inherit' }).status ?? 1;
if (run('npx', ['tsc', '-p', 'tsconfig.json']) !== 0) console.error('bench: type errors (the benches still run from the emitted output)');
if (run('node', ['scripts/build.mjs']) !== 0) process.exit(1);
const benchDir = path.join(root, 'out', 'bench');
const files = readdirSync(benchDir).filter((f) => f.endsWith('.bench.js') && (only.length === 0 || only.some((o) => f.includes(o)))).sort();
let failed = 0;
for (const file of files) {
  console.log(`\n# ${file.replace(/\.bench\.js$/, '')}`);
  if (run('node', [path.join(benchDir, file)]) !== 0) {
    failed += 1;
    console.error(`bench: ${file} failed`);
  }
}
process.exit(failed > 0 ? 1 : 0);
