// A workspace of N source files under the temp folder, made once and reused by later runs (a 200,000-file one
// takes minutes to write on a loaded machine): 100 files a folder, 50 folders a package, plus an ignored
// node_modules/ with folders of its own, which no checkpoint reads and no watcher watches.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function bigWorkspace(files: number): string {
  const dir = path.join(os.tmpdir(), `vigil-bench-ws-${files}`);
  const marker = path.join(dir, '.vigil-bench-complete');
  if (existsSync(marker)) return dir;
  for (let i = 0; i < files; i += 1) {
    const folder = path.join(dir, `pkg${Math.floor(i / 5_000)}`, `mod${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `file${i % 100}.ts`), `// file ${i}\nexport const value${i} = ${i};\n`);
  }
  for (let d = 0; d < 20; d += 1) {
    mkdirSync(path.join(dir, 'node_modules', `dep${d}`, 'lib'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules', `dep${d}`, 'lib', 'index.js'), 'module.exports = 1;\n');
  }
  writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\ndist/\n.vigil-bench-complete\n');
  writeFileSync(marker, `${files}\n`);
  return dir;
}
